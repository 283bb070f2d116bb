-- lock-renew: resets the lease of many holds in one call (the lease keeper's batch; also one hold's
-- lease set by its owner: LockHandle.extend, closeAfter).
-- KEYS[i]    lock hash of the i-th hold
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  owner id of the i-th hold
-- Returns    the indices i, ascending, of the holds the owner no longer held (expired,
--            force-unlocked, lost with a restart, or the key now holds another type of value);
--            every other hold's lease was reset. Usually empty: the reply stays small however
--            many holds the batch renews.
-- Marks      '#e' in a hash whose lease this call shortened (extend or closeAfter with a shorter
--            lease, a renewal after a re-entry's longer lease): the expiry a waiting client knows
--            under the holder's '#t' does not stand, so lock-acquire.lua reads the PTTL again (see
--            its Hints). A lengthening renewal (the lease keeper's usual one) is the one PEXPIRE,
--            as before; one that leaves the expiry where it was reads the PTTL too.
local lease = ARGV[1]
local lost = {}
for i, lock in ipairs(KEYS) do
  if redis.pcall('HEXISTS', lock, ARGV[i + 1]) == 1 then
    -- GT: set only when later; else it ends at that very ms (a renewal right after the hold
    -- was taken or renewed), or later (then shortened, and marked), or the hash has no expiry
    if redis.call('PEXPIRE', lock, lease, 'GT') == 0
        and redis.call('PTTL', lock) ~= tonumber(lease) then
      redis.call('PEXPIRE', lock, lease)
      redis.call('HSET', lock, '#e', 1)
    end
  else
    lost[#lost + 1] = i
  end
end
return lost
