-- rw-read-release: gives back one read hold; when the last live reader leaves, wakes the waiters.
-- KEYS[1]  reads hash (see rw-write-acquire.lua)
-- KEYS[2]  readers (see rw-write-acquire.lua)
-- KEYS[3]  wanted flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's read hold count as the client knows it
-- ARGV[3]  release channel
-- Returns  {1, remaining} when the owner held a live read hold; {0} when not (expired,
--          force-unlocked, or already released). Cost: independent of the number of readers.
local reads, readers, wanted, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local held = tonumber(redis.call('HGET', reads, owner))
local deadline = tonumber(redis.call('ZSCORE', readers, owner))
if not held or not deadline or deadline <= now then
  if held then
    redis.call('HDEL', reads, owner, 't:' .. owner, 'a:' .. owner)
    redis.call('ZREM', readers, owner)
  end
  return {0}
end
if held < tonumber(ARGV[2]) then
  return {1, held}
end
if held > 1 then
  return {1, redis.call('HINCRBY', reads, owner, -1)}
end
redis.call('HDEL', reads, owner, 't:' .. owner, 'a:' .. owner)
redis.call('ZREM', readers, owner)
if redis.call('ZCOUNT', readers, '(' .. now, '+inf') == 0 and redis.call('DEL', wanted) == 1 then
  redis.call('PUBLISH', ARGV[3], 'all')
end
return {1, 0}
