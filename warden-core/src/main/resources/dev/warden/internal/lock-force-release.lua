-- lock-force-release: deletes the lock whoever holds it and wakes its waiters.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- ARGV[1]  release channel
-- Returns  {1} when the lock was held, {0} when it was free.
-- Raises   WRONGTYPE when the key holds something that is not a lock: it is not deleted.
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return {0}
end
if kind ~= 'hash' then
  return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], 'released')
return {1}
