-- rw-write-acquire: takes the write lock of a read-write lock if no other writer holds it and no
-- other owner reads; otherwise registers the caller as a waiting writer, which keeps new readers
-- out until it is through.
-- KEYS[1]  write hash: owner id -> hold count; '#t' -> fencing token; '#a' -> acquisition id
-- KEYS[2]  reads hash: owner id -> read hold count; 't:<owner>' -> token; 'a:<owner>' -> id
-- KEYS[3]  readers: owner id -> lease deadline (server ms); a reader counts only until then
-- KEYS[4]  waiting writers: owner id -> heartbeat deadline (server ms)
-- KEYS[5]  fence counter, shared by reads and writes
-- KEYS[6]  'wanted' flag: somebody was refused and waits; the next release that frees room
--          publishes a wake-up for all
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
-- ARGV[3]  the owner's write hold count as the client knows it
-- ARGV[4]  fence counter retention in ms
-- ARGV[5]  '1' when the caller waits if refused (it then registers as a waiting writer)
-- ARGV[6]  waiting-writer heartbeat timeout in ms
-- ARGV[7]  this acquisition's id (see lock-acquire.lua)
-- Returns  {1, token, holdCount} when acquired; {0, retryAfterMs} when refused;
--          {-1} when the owner holds read holds but no write hold (no upgrade).
local write, reads, readers, writers, fence, wanted =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, lease = ARGV[1], tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local held = redis.call('HGET', write, owner)
if held then
  held = tonumber(held)
  if held <= tonumber(ARGV[3]) or redis.call('HGET', write, '#a') ~= ARGV[7] then
    held = redis.call('HINCRBY', write, owner, 1)
    redis.call('HSET', write, '#a', ARGV[7])
  end
  if redis.call('PTTL', write) < lease then
    redis.call('PEXPIRE', write, lease)
  end
  return {1, tonumber(redis.call('HGET', write, '#t')), held}
end

local readerDeadline = tonumber(redis.call('ZSCORE', readers, owner))
if readerDeadline and readerDeadline > now then
  return {-1}
end

local function refuse(retry)
  if ARGV[5] == '1' then
    local timeout = tonumber(ARGV[6])
    redis.call('ZADD', writers, now + timeout, owner)
    redis.call('PEXPIRE', writers, timeout * 4)
  end
  redis.call('SET', wanted, 1, 'PX', 60000)
  return {0, retry}
end

if redis.call('EXISTS', write) == 1 then
  return refuse(redis.call('PTTL', write))
end
-- readers whose lease ran out stop counting; drop a bounded number of them
local expired = redis.call('ZRANGEBYSCORE', readers, '-inf', now, 'LIMIT', 0, 20)
for _, reader in ipairs(expired) do
  redis.call('ZREM', readers, reader)
  redis.call('HDEL', reads, reader, 't:' .. reader, 'a:' .. reader)
end
local earliest = redis.call('ZRANGEBYSCORE', readers, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if #earliest > 0 then
  return refuse(tonumber(earliest[2]) - now)
end

local token = redis.call('INCR', fence)
if token == 1 then
  token = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  redis.call('SET', fence, string.format('%.0f', token), 'PX', ARGV[4])
end
redis.call('HSET', write, owner, 1, '#t', string.format('%.0f', token), '#a', ARGV[7])
redis.call('PEXPIRE', write, lease)
redis.call('ZREM', writers, owner)
return {1, token, 1}
