-- rw-read-acquire: takes a read hold of a read-write lock unless another owner writes, or a
-- writer waits (then new readers queue behind it; holders of read holds may still re-enter, and
-- the writer itself may read).
-- KEYS[1]  write hash (see rw-write-acquire.lua)
-- KEYS[2]  reads hash (see rw-write-acquire.lua)
-- KEYS[3]  readers (see rw-write-acquire.lua)
-- KEYS[4]  waiting writers (see rw-write-acquire.lua)
-- KEYS[5]  fence counter (see rw-write-acquire.lua)
-- KEYS[6]  'wanted' flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms (each read hold has its own)
-- ARGV[3]  the owner's read hold count as the client knows it (see lock-acquire.lua's ARGV[3]:
--          a live read hold of the owner gets count known + 1; one the client does not know of is
--          taken over with count 1 and a new token)
-- ARGV[4]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[5]  this acquisition's id, recorded in 'a:<owner>' (see lock-acquire.lua's ARGV[6])
-- Returns  {1, token, holdCount} when acquired (as lock-acquire.lua); {0, retryAfterMs} when
--          refused.
-- Cost: independent of the number of readers (sorted-set lookups; a bounded clean-up).
local WANTED_MS = 60000 -- lifetime of the 'wanted' flag, ms (as rw-write-acquire.lua)
local write, reads, readers, writers, fence, wanted =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, lease = ARGV[1], tonumber(ARGV[2])
local now = server_ms()

local function extend()
  redis.call('ZADD', readers, 'GT', now + lease, owner)
  redis.call('PEXPIRE', reads, lease, 'GT')
  redis.call('PEXPIRE', readers, lease, 'GT')
  -- a key without expiry refuses GT; give it one
  if redis.call('PTTL', reads) < 0 then redis.call('PEXPIRE', reads, lease) end
  if redis.call('PTTL', readers) < 0 then redis.call('PEXPIRE', readers, lease) end
end

local held = redis.call('HGET', reads, owner)
local deadline = tonumber(redis.call('ZSCORE', readers, owner))
if held and deadline and deadline > now then
  -- a re-entry, a replay, or a hold the client does not know of (see prelude.lua's raise)
  local count, unknown = raise(reads, owner, held, ARGV[3], ARGV[5], 'a:' .. owner)
  extend()
  if unknown then
    local token = mint_token(fence, ARGV[4])
    redis.call('HSET', reads, 't:' .. owner, token)
    return {1, token, count}
  end
  return {1, redis.call('HGET', reads, 't:' .. owner), count}
end
if held then -- its lease ran out: that hold is gone
  drop_reader(reads, readers, owner)
end

local writing = redis.call('EXISTS', write) == 1
if writing and redis.call('HEXISTS', write, owner) == 0 then
  redis.call('SET', wanted, 1, 'PX', WANTED_MS)
  return {0, redis.call('PTTL', write)}
end
if not writing then
  -- a live waiting writer goes first; dead ones (no heartbeat) are dropped
  redis.call('ZREMRANGEBYSCORE', writers, '-inf', now)
  local first = redis.call('ZRANGE', writers, 0, 0, 'WITHSCORES')
  if #first > 0 then
    redis.call('SET', wanted, 1, 'PX', WANTED_MS)
    return {0, tonumber(first[2]) - now}
  end
end

local token = mint_token(fence, ARGV[4])
grant_read(reads, owner, token, ARGV[5])
extend()
return {1, token, 1}
