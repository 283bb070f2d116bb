-- lock-transfer: hands the reentrant lock from an owner giving back its last hold straight to a
-- waiter of the same client, in one step: one script call per hand-off instead of a release and
-- an acquisition, and no other attempt can slip in between.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- KEYS[2]  fence counter (see lock-acquire.lua)
-- KEYS[3]  the giving owner's release marker (see lock-release.lua)
-- ARGV[1]  the owner giving the lock away; the client knows it holds one hold (its last), so it
--          keeps none, whatever Redis counted
-- ARGV[2]  the waiter taking it
-- ARGV[3]  the waiter's lease in ms
-- ARGV[4]  the waiter's acquisition id, recorded in '#a': if the waiter tries again itself, it
--          finds the hold it was given (see lock-acquire.lua) instead of taking another; a
--          give-back of that acquisition undoes the hand-off (see lock-release.lua)
-- ARGV[5]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[6]  the giving owner's release id, recorded in KEYS[3] (see lock-release.lua's ARGV[10]):
--          the giver's release, run again after a lost reply, finds that it ended the hold
-- ARGV[7]  how long the marker lives, in ms
-- Returns  {1, token, othersWait} when the waiter holds the lock now (with a new, higher token);
--          othersWait is 1 when the lock records a waiter that a hand-off cannot reach ('#o',
--          see lock-acquire.lua), 0 otherwise;
--          {0} when the giving owner held no hold (its lease ran out, or a retried transfer ran).
local lock, fence = KEYS[1], KEYS[2]
local state = redis.call('HMGET', lock, ARGV[1], '#o')
if not state[1] then
  return {0}
end
local token = mint_token(fence, ARGV[5])
redis.call('HDEL', lock, ARGV[1])
grant(lock, ARGV[2], token, ARGV[4])
redis.call('PEXPIRE', lock, ARGV[3])
mark_released(KEYS[3], ARGV[6], ARGV[7])
return {1, token, state[2] and 1 or 0}
