-- fair-force-release: deletes the fair lock whoever holds it and tells the first waiter.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- ARGV[1]  release channel
-- Returns  {1} when the lock was held, {0} when it was free.
-- Raises   WRONGTYPE when the key holds something that is not a lock: it is not deleted.
-- Wakes    'w:<waiter>', on the channel of the waiter's client alone: ARGV[1] .. ':<client id>'
--          (or on ARGV[1] too when nobody received it there: prelude.lua's publish_to; see "Wake
--          messages" in CONCURRENCY.md)
local deleted, wrong = force_delete(KEYS[1])
if wrong then
  return wrong
end
if not deleted then
  return {0}
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0)
if #first > 0 then
  publish_to(ARGV[1], first[1], 'w:' .. first[1])
end
return {1}
