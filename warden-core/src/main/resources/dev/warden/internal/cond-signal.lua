-- cond-signal: wakes the longest-waiting live waiter of a condition, or all of them.
-- KEYS[1]  the lock's hash of owner -> hold count (the caller must hold the lock)
-- KEYS[2]  the condition's waiters (see cond-enqueue.lua)
-- KEYS[3]  the condition's heartbeats
-- ARGV[1]  owner id
-- ARGV[2]  '1' to signal all, '0' to signal one
-- ARGV[3]  the condition's channel: 'w:<id>' wakes one waiter, 'all' all of them
-- Returns  {n}: the number of waiters signalled; {-1} when the caller does not hold the lock.
-- Cost: signal skips at most 100 dead waiters (they would swallow the signal); signalAll clears
-- the list in one step and publishes once.
local lock, waiters, beats = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HEXISTS', lock, ARGV[1]) == 0 then
  return {-1}
end
if ARGV[2] == '1' then
  local count = redis.call('ZCARD', waiters)
  if count > 0 then
    redis.call('DEL', waiters, beats)
    redis.call('PUBLISH', ARGV[3], 'all')
  end
  return {count}
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for _ = 1, 100 do
  local first = redis.call('ZRANGE', waiters, 0, 0)
  if #first == 0 then
    return {0}
  end
  local deadline = tonumber(redis.call('ZSCORE', beats, first[1]))
  redis.call('ZREM', waiters, first[1])
  redis.call('ZREM', beats, first[1])
  if deadline and deadline > now then
    redis.call('PUBLISH', ARGV[3], 'w:' .. first[1])
    return {1}
  end
end
return {0}
