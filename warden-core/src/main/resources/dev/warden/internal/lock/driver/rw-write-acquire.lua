-- rw-write-acquire: takes the write lock of a read-write lock if no other writer holds it and no
-- other owner reads; otherwise registers the caller as a waiting writer, which keeps new readers
-- out until it is through.
-- KEYS[1]  write hash: owner id -> hold count; '#t' -> fencing token; '#a' -> acquisition id
-- KEYS[2]  reads hash: owner id -> read hold count; 't:<owner>' -> token; 'a:<owner>' -> the id
--          of the acquisition that set the count last (see prelude.lua's raise and lower)
-- KEYS[3]  readers: owner id -> lease deadline (server ms); a reader counts only until then
-- KEYS[4]  waiting writers: '<owner id>/<acquisition id>' -> heartbeat deadline (server ms); one
--          entry per waiting acquisition, so that a writer that gave up leaves only its own
--          (rw-writer-leave.lua)
-- KEYS[5]  fence counter, shared by reads and writes
-- KEYS[6]  'wanted' flag: somebody was refused and waits; the next release that frees room
--          publishes a wake-up for all. It lives WANTED_MS, so that a flag nobody clears goes.
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
-- ARGV[3]  the owner's write hold count as the client knows it (see lock-acquire.lua's ARGV[3])
-- ARGV[4]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[5]  '1' when the caller waits if refused (it then registers as a waiting writer)
-- ARGV[6]  waiting-writer heartbeat timeout in ms
-- ARGV[7]  this acquisition's id (see lock-acquire.lua's ARGV[6])
-- ARGV[8]  the owner's read hold count as the client knows it: with 0, a live read hold of the
--          owner is one the client does not know of (a rewind brought it back); it ends here
--          instead of refusing the owner the write lock
-- Returns  {1, token, holdCount} when acquired (as lock-acquire.lua); {0, retryAfterMs} when
--          refused; {-1} when the owner holds read holds its client knows of, but no write hold
--          (no upgrade).
-- Cost: independent of the number of readers (at most EXPIRED_READERS are dropped per call).
local WANTED_MS = 60000 -- lifetime of the 'wanted' flag, ms
local EXPIRED_READERS = 20 -- readers whose lease ran out dropped per call, at most
local KEY_LIFE = 4 -- how long the waiting writers live, in heartbeat timeouts
local write, reads, readers, writers, fence, wanted =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, lease = ARGV[1], tonumber(ARGV[2])
local now = server_ms()

local held = redis.call('HGET', write, owner)
if held then
  local token
  held, token = reenter_fenced(write, fence, ARGV[4], owner, held, ARGV[3], ARGV[7], lease)
  return {1, token, held}
end

local readerDeadline = tonumber(redis.call('ZSCORE', readers, owner))
if readerDeadline and readerDeadline > now then
  if ARGV[8] ~= '0' then
    return {-1}
  end
  drop_reader(reads, readers, owner) -- a read hold nobody knows of
end
local waiting = owner .. '/' .. ARGV[7] -- this acquisition among the waiting writers

local function refuse(retry)
  if ARGV[5] == '1' then
    local timeout = tonumber(ARGV[6])
    redis.call('ZADD', writers, now + timeout, waiting)
    redis.call('PEXPIRE', writers, timeout * KEY_LIFE)
  end
  redis.call('SET', wanted, 1, 'PX', WANTED_MS)
  return {0, retry}
end

if redis.call('EXISTS', write) == 1 then
  return refuse(redis.call('PTTL', write))
end
-- readers whose lease ran out stop counting; drop a bounded number of them
local expired = redis.call('ZRANGEBYSCORE', readers, '-inf', now, 'LIMIT', 0, EXPIRED_READERS)
for _, reader in ipairs(expired) do
  drop_reader(reads, readers, reader)
end
local earliest =
  redis.call('ZRANGEBYSCORE', readers, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if #earliest > 0 then
  return refuse(tonumber(earliest[2]) - now)
end

local token = mint_token(fence, ARGV[4])
grant(write, owner, token, ARGV[7])
redis.call('PEXPIRE', write, lease)
redis.call('ZREM', writers, waiting)
return {1, token, 1}
