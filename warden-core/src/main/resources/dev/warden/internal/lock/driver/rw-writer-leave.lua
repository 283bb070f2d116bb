-- rw-writer-leave: takes a waiting writer that gave up off the waiting list at once, and wakes
-- the readers it was keeping out.
-- KEYS[1]  waiting writers (see rw-write-acquire.lua)
-- KEYS[2]  wanted flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  release channel
-- ARGV[3]  the id of the acquisition that gave up: only its own entry leaves (a later acquisition
--          of the same owner may be waiting already)
-- Returns  {1} when the writer was waiting, {0} when not.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local writers, wanted = KEYS[1], KEYS[2]
local removed = redis.call('ZREM', writers, ARGV[1] .. '/' .. ARGV[3])
if removed == 1 and redis.call('ZCARD', writers) == 0 and redis.call('DEL', wanted) == 1 then
  publish(ARGV[2], 'all')
end
return {removed}
