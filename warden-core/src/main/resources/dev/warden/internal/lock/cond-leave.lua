-- cond-leave: takes a waiter that stops waiting (timed out, interrupted) off the wait list.
-- KEYS[1]  the condition's waiters (see cond-enqueue.lua)
-- KEYS[2]  the condition's heartbeats (see cond-enqueue.lua)
-- ARGV[1]  waiter id
-- Returns  {1} when it was still waiting; {0} when a signal had taken it off already (then the
--          signal is its: it must not be lost).
redis.call('ZREM', KEYS[2], ARGV[1])
return {redis.call('ZREM', KEYS[1], ARGV[1])}
