-- leased-semaphore-add: adds free permits, or sets them if never set, and wakes waiters.
-- KEYS[1]  semaphore (see leased-semaphore-acquire.lua)
-- KEYS[2]  marker of this call: a replay (a retry after a lost reply) finds it and changes nothing
-- ARGV[1]  'add' (a negative number removes permits) or 'set' (only if never set)
-- ARGV[2]  permits
-- ARGV[3]  marker lifetime, ms
-- ARGV[4]  release channel; the message is the number of permits that became free
-- KEYS[3]  leases (see leased-semaphore-acquire.lua)
-- ARGV[5]  idle expiry, ms (see leased-semaphore-acquire.lua)
-- Returns  {1, free} when applied, now or by an earlier run of this call (free: afterwards);
--          {0, free} when 'set' found the permits set already;
--          {-1, free} when the free permits would leave the range of a 32-bit integer.
-- Wakes    '<n>' (see "Wake messages" in CONCURRENCY.md)
local semaphore, marker = KEYS[1], KEYS[2]
local amount = tonumber(ARGV[2])
local free = tonumber(redis.call('HGET', semaphore, 'permits') or '0')
if redis.call('EXISTS', marker) == 1 then
  return {1, free}
end
if ARGV[1] == 'set' and redis.call('HEXISTS', semaphore, 'permits') == 1 then
  return {0, free}
end
if free + amount > INT32_MAX or free + amount < INT32_MIN then
  return {-1, free}
end
free = redis.call('HINCRBY', semaphore, 'permits', amount)
redis.call('PERSIST', semaphore) -- it may have held only a waiter's mark, which expires
keep_leased(semaphore, KEYS[3], ARGV[5])
redis.call('SET', marker, 1, 'PX', ARGV[3])
if amount > 0 and free > 0 and redis.call('HDEL', semaphore, '#w') == 1 then
  publish(ARGV[4], string.format('%d', math.min(free, amount)))
end
return {1, free}
