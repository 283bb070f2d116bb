-- cond-enqueue: joins a condition's wait list while still holding its lock, and leaves the
-- caller one hold, which it then gives back with the lock's own release: nobody can signal in
-- between (signalling needs the lock), so no signal is lost between release and wait.
-- KEYS[1]  the lock's hash of owner -> hold count (see lock-acquire.lua); '#a' is cleared
-- KEYS[2]  the condition's waiters: waiter id -> arrival number
-- KEYS[3]  the condition's heartbeats: waiter id -> deadline (server ms)
-- KEYS[4]  the arrival counter
-- ARGV[1]  owner id
-- ARGV[2]  waiter id (unique per await)
-- ARGV[3]  heartbeat timeout in ms
-- Returns  {holdCount}: the owner's hold count in Redis before (the client takes back its own
--          count after the wait, not this: see lock-acquire.lua's ARGV[3]); {0} when it holds none.
local KEY_LIFE = 4 -- how long the condition's keys live, in heartbeat timeouts
local lock, waiters, beats, arrivals = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local held = tonumber(redis.call('HGET', lock, ARGV[1]))
if not held then
  return {0}
end
local now = server_ms()
local timeout = tonumber(ARGV[3])
redis.call('ZADD', waiters, redis.call('INCR', arrivals), ARGV[2])
redis.call('ZADD', beats, now + timeout, ARGV[2])
for _, key in ipairs({waiters, beats, arrivals}) do
  redis.call('PEXPIRE', key, timeout * KEY_LIFE)
end
-- the count is set: no give-back of an earlier acquisition applies to it any more (prelude.lua's
-- lower)
redis.call('HSET', lock, ARGV[1], 1)
redis.call('HDEL', lock, '#a')
return {held}
