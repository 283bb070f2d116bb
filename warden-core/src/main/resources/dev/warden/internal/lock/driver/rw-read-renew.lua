-- rw-read-renew: resets the lease of many read holds in one call (the lease keeper's batch).
-- KEYS[2i-1]  reads hash of the i-th hold (see rw-write-acquire.lua)
-- KEYS[2i]    readers of the i-th hold (see rw-write-acquire.lua)
-- ARGV[1]     lease in ms
-- ARGV[i+1]   owner id of the i-th hold
-- Returns     the indices i, ascending, of the holds that were no longer live read holds of their
--             owner; every other hold's lease was reset. Usually empty.
local lease = tonumber(ARGV[1])
local now = server_ms()
local lost = {}
for i = 1, #ARGV - 1 do
  local reads, readers, owner = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
  local deadline = tonumber(redis.pcall('ZSCORE', readers, owner))
  if deadline and deadline > now and redis.call('HEXISTS', reads, owner) == 1 then
    redis.call('ZADD', readers, 'GT', now + lease, owner)
    redis.call('PEXPIRE', reads, lease, 'GT')
    redis.call('PEXPIRE', readers, lease, 'GT')
  else
    lost[#lost + 1] = i
  end
end
return lost
