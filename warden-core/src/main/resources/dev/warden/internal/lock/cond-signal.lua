-- cond-signal: wakes the longest-waiting live waiter of a condition, or all of them.
-- KEYS[1]  the lock's hash of owner -> hold count (the caller must hold the lock)
-- KEYS[2]  the condition's waiters (see cond-enqueue.lua)
-- KEYS[3]  the condition's heartbeats (see cond-enqueue.lua)
-- ARGV[1]  owner id
-- ARGV[2]  '1' to signal all, '0' to signal one
-- ARGV[3]  the condition's channel
-- Returns  {n}: the number of waiters signalled; {-1} when the caller does not hold the lock.
-- Wakes    'w:<waiter>' (signal) or 'all' (signalAll) (see "Wake messages" in CONCURRENCY.md)
-- Cost: signal skips at most DEAD_WAITERS dead waiters (they would swallow the signal); signalAll
-- clears the list in one step and publishes once.
local DEAD_WAITERS = 100 -- dead waiters dropped from the head of the list per signal, at most
local lock, waiters, beats = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HEXISTS', lock, ARGV[1]) == 0 then
  return {-1}
end
if ARGV[2] == '1' then
  local count = redis.call('ZCARD', waiters)
  if count > 0 then
    redis.call('DEL', waiters, beats)
    publish(ARGV[3], 'all')
  end
  return {count}
end
local head = live_head(waiters, beats, server_ms(), DEAD_WAITERS)
if not head then
  return {0}
end
redis.call('ZREM', waiters, head)
redis.call('ZREM', beats, head)
publish(ARGV[3], 'w:' .. head)
return {1}
