-- rw-writer-leave: takes a waiting writer that gave up off the waiting list at once, and wakes
-- the readers it was keeping out.
-- KEYS[1]  waiting writers (see rw-write-acquire.lua)
-- KEYS[2]  wanted flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  release channel
-- Returns  {1} when the writer was waiting, {0} when not.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 and redis.call('ZCARD', KEYS[1]) == 0 and redis.call('DEL', KEYS[2]) == 1 then
  redis.call('PUBLISH', ARGV[2], 'all')
end
return {removed}
