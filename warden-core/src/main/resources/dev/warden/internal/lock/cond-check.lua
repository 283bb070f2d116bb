-- cond-check: tells a waiter whether it was signalled (taken off the wait list); if not, renews
-- its heartbeat, so that signals skip only waiters that died.
-- KEYS[1]  the condition's waiters (see cond-enqueue.lua)
-- KEYS[2]  the condition's heartbeats (see cond-enqueue.lua)
-- KEYS[3]  the arrival counter (see cond-enqueue.lua)
-- ARGV[1]  waiter id
-- ARGV[2]  heartbeat timeout in ms
-- Returns  {1} when signalled, {0} when still waiting.
local KEY_LIFE = 4 -- how long the condition's keys live, in heartbeat timeouts (as cond-enqueue)
local waiters, beats = KEYS[1], KEYS[2]
if not redis.call('ZSCORE', waiters, ARGV[1]) then
  return {1}
end
local now = server_ms()
local timeout = tonumber(ARGV[2])
redis.call('ZADD', beats, now + timeout, ARGV[1])
for _, key in ipairs({waiters, beats, KEYS[3]}) do
  redis.call('PEXPIRE', key, timeout * KEY_LIFE)
end
return {0}
