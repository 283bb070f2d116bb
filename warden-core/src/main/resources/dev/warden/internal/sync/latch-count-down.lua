-- latch-count-down: lowers the count of a latch by one; at zero deletes it and wakes all awaiters.
-- KEYS[1]  latch (see latch-set.lua)
-- KEYS[2]  marker of this call: a replay (a retry after a lost reply) finds it and counts nothing
-- ARGV[1]  release channel: 'all' is published to it when the count reaches zero and somebody
--          awaited the latch
-- ARGV[2]  marker lifetime, ms
-- ARGV[3]  idle expiry, ms: the latch lives that long after this call ('0': for ever)
-- Returns  {1} when the count went down (now or in an earlier run of this call), {0} when it was
--          zero already (nothing happens, as in CountDownLatch).
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local latch, marker = KEYS[1], KEYS[2]
if redis.call('EXISTS', marker) == 1 then
  return {1}
end
local state = redis.call('HMGET', latch, 'count', '#w')
if not state[1] then
  return {0}
end
if redis.call('HINCRBY', latch, 'count', -1) <= 0 then
  redis.call('DEL', latch)
  if state[2] then
    publish(ARGV[1], 'all')
  end
elseif tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', latch, ARGV[3])
end
redis.call('SET', marker, 1, 'PX', ARGV[2])
return {1}
