-- rw-force-release: deletes one side of a read-write lock (all read holds, or the write hold)
-- whoever holds it, and wakes every waiter.
-- KEYS     the keys of that side: the write hash (KEYS[1]); or the reads hash (KEYS[1]) and the
--          readers (KEYS[2]) (see rw-write-acquire.lua)
-- ARGV[1]  release channel
-- Returns  {1} when some hold was deleted, {0} when there was none.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local deleted = redis.call('DEL', unpack(KEYS))
if deleted > 0 then
  publish(ARGV[1], 'all')
  return {1}
end
return {0}
