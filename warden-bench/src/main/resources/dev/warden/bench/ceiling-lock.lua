-- ceiling-lock: the shape of an uncontended lock acquisition with a fencing token, for
-- redis-benchmark's ceiling run: what one script call that checks a lock hash, mints a token from
-- its fence and the server clock, and writes and expires the hash costs Redis at best.
-- KEYS[1]  lock hash (its fence is KEYS[1] .. ':fence', on the same server)
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Returns  1
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
return 1
