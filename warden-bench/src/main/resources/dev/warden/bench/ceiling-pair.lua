-- ceiling-pair: the work of an uncontended lock()+unlock() pair in one call, for redis-benchmark's
-- ceiling run: check the lock hash, mint a fencing token from its fence and the server clock, write
-- and expire the hash (the acquisition), then read the owner's count and whether somebody waits and
-- delete the hash (the last release). The pair leaves the lock free, so every call on any key,
-- repeated or not, acquires a free lock and releases a held one: all of the work, every time.
-- The fence stays, as a real lock's fence does between its holds.
-- KEYS[1]  lock hash (its fence is KEYS[1] .. ':fence', on the same server)
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Returns  1 (0 only if the lock was held, which no other call leaves it)
local lock, fence = KEYS[1], KEYS[1] .. ':fence'
if redis.call('EXISTS', lock) == 1 then
  return 0
end
local last = redis.call('HMGET', fence, 'e', 'c')
local time = redis.call('TIME')
local count = math.max(tonumber(last[2] or 0) + 1, tonumber(time[1]) * 100000)
redis.call('HSET', fence, 'e', 0, 'c', string.format('%.0f', count))
redis.call('HSET', lock, ARGV[1], 1, '#t', string.format('%.0f', count))
redis.call('PEXPIRE', lock, ARGV[2])
local state = redis.call('HMGET', lock, ARGV[1], '#w')
if not state[1] then
  return 0
end
redis.call('DEL', lock)
return 1
