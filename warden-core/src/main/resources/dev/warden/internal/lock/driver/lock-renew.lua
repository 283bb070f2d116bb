-- lock-renew: resets the lease of many holds in one call (the lease keeper's batch).
-- KEYS[i]    lock hash of the i-th hold
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  owner id of the i-th hold
-- Returns    the indices i, ascending, of the holds the owner no longer held (expired,
--            force-unlocked, lost with a restart, or the key now holds another type of value);
--            every other hold's lease was reset. Usually empty: the reply stays small however
--            many holds the batch renews.
local lease = ARGV[1]
local lost = {}
for i, lock in ipairs(KEYS) do
  if redis.pcall('HEXISTS', lock, ARGV[i + 1]) == 1 then
    redis.call('PEXPIRE', lock, lease)
  else
    lost[#lost + 1] = i
  end
end
return lost
