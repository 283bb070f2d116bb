-- lock-force-release: deletes the lock whoever holds it and wakes its waiters.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- ARGV[1]  release channel
-- Returns  {1} when the lock was held, {0} when it was free.
-- Raises   WRONGTYPE when the key holds something that is not a lock: it is not deleted.
-- Wakes    'released' (see "Wake messages" in CONCURRENCY.md)
local deleted, wrong = force_delete(KEYS[1])
if wrong then
  return wrong
end
if not deleted then
  return {0}
end
publish(ARGV[1], 'released')
return {1}
