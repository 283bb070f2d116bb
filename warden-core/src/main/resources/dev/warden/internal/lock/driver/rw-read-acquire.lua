-- rw-read-acquire: takes a read hold of a read-write lock unless another owner writes, or a
-- writer waits (then new readers queue behind it; holders of read holds may still re-enter, and
-- the writer itself may read).
-- KEYS[1..6] as rw-write-acquire.lua: write, reads, readers, waiting writers, fence, wanted
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms (each read hold has its own)
-- ARGV[3]  the owner's read hold count as the client knows it
-- ARGV[4]  fence counter retention in ms
-- ARGV[5]  this acquisition's id (see lock-acquire.lua)
-- Returns  {1, token, holdCount} when acquired; {0, retryAfterMs} when refused.
-- Cost: independent of the number of readers (sorted-set lookups; a bounded clean-up).
local write, reads, readers, writers, fence, wanted =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, lease = ARGV[1], tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

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
  held = tonumber(held)
  if held <= tonumber(ARGV[3]) or redis.call('HGET', reads, 'a:' .. owner) ~= ARGV[5] then
    held = redis.call('HINCRBY', reads, owner, 1)
    redis.call('HSET', reads, 'a:' .. owner, ARGV[5])
  end
  extend()
  return {1, tonumber(redis.call('HGET', reads, 't:' .. owner)), held}
end
if held then -- its lease ran out: that hold is gone
  redis.call('HDEL', reads, owner, 't:' .. owner, 'a:' .. owner)
  redis.call('ZREM', readers, owner)
end

local writing = redis.call('EXISTS', write) == 1
if writing and redis.call('HEXISTS', write, owner) == 0 then
  redis.call('SET', wanted, 1, 'PX', 60000)
  return {0, redis.call('PTTL', write)}
end
if not writing then
  -- a live waiting writer goes first; dead ones (no heartbeat) are dropped, a bounded number
  redis.call('ZREMRANGEBYSCORE', writers, '-inf', now)
  local first = redis.call('ZRANGE', writers, 0, 0, 'WITHSCORES')
  if #first > 0 then
    redis.call('SET', wanted, 1, 'PX', 60000)
    return {0, tonumber(first[2]) - now}
  end
end

local token = redis.call('INCR', fence)
if token == 1 then
  token = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  redis.call('SET', fence, string.format('%.0f', token), 'PX', ARGV[4])
end
redis.call('HSET', reads, owner, 1, 't:' .. owner, string.format('%.0f', token), 'a:' .. owner, ARGV[5])
extend()
return {1, token, 1}
