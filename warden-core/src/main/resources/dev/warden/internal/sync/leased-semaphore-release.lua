-- leased-semaphore-release: gives back a leased permit by its id and wakes a waiter.
-- KEYS[1]  semaphore (see leased-semaphore-acquire.lua)
-- KEYS[2]  leases: permit id -> when its lease ends (zset, server ms)
-- KEYS[3]  marker of this release (the same for each retry of it): set when it frees a live
--          permit, so that a retry after a lost reply, finding the id gone, can tell its own earlier
--          run from a lease that ended before it
-- ARGV[1]  permit id
-- ARGV[2]  release channel
-- ARGV[3]  marker lifetime, ms
-- ARGV[4]  idle expiry, ms (see leased-semaphore-acquire.lua)
-- Returns  {1} when the permit was leased and is free again, now or by an earlier run of this
--          release (its marker is there);
--          {0} when the id is unknown (never issued, released already, or returned to the pool
--          after its lease ended), or when its lease had ended: it returns to the pool here.
-- Wakes    '1' (a '<n>'; see "Wake messages" in CONCURRENCY.md)
local semaphore, leases, marker, id = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local ends = redis.call('ZSCORE', leases, id)
if not ends then
  return {redis.call('EXISTS', marker)}
end
redis.call('ZREM', leases, id)
redis.call('HINCRBY', semaphore, 'permits', 1)
keep_leased(semaphore, leases, ARGV[4])
if redis.call('HDEL', semaphore, '#w') == 1 then
  publish(ARGV[2], '1')
end
if tonumber(ends) <= server_ms() then
  return {0}
end
redis.call('SET', marker, 1, 'PX', ARGV[3])
return {1}
