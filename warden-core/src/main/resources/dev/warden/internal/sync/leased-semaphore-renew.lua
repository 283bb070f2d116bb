-- leased-semaphore-renew: makes the lease of a live permit end the given time from now.
-- KEYS[1]  leases: permit id -> when its lease ends (zset, server ms)
-- KEYS[2]  semaphore (see leased-semaphore-acquire.lua)
-- ARGV[1]  permit id
-- ARGV[2]  lease, ms
-- ARGV[3]  idle expiry, ms (see leased-semaphore-acquire.lua)
-- Returns  {1} when the permit was live and its lease now ends ARGV[2] ms from now;
--          {0} when the id is unknown or its lease had ended (it stays free).
local leases, id = KEYS[1], ARGV[1]
local now = server_ms()
local ends = redis.call('ZSCORE', leases, id)
if not ends or tonumber(ends) <= now then
  return {0}
end
redis.call('ZADD', leases, 'XX', now + tonumber(ARGV[2]), id)
keep_leased(KEYS[2], leases, ARGV[3])
return {1}
