-- lock-release: gives back one hold of the reentrant lock; deletes the lock with the last one.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's hold count as the client knows it before this call; a replayed call
--          finds the count already lowered and changes nothing
-- ARGV[3]  release channel, published to when an acquirer waited
-- ARGV[4]  the message: 'released <client id>' (the releasing client woke its own waiters
--          already and ignores it; other clients wake one waiter)
-- ARGV[5]  how long, in ms, a last release keeps the lock for other clients when one of theirs
--          waited ('#o'): a reservation that this client's own acquirers (woken at once, with no
--          message to wait for) cannot take, so that the lock changes client (see lock-acquire.lua)
-- Returns  {1, remaining} when the owner held the lock (remaining: its holds afterwards);
--          {0} when the owner holds no hold: the lease ran out, the lock was force-unlocked,
--          or (for a replayed last release) it was released already; the client tells which.
-- Wakes    'released <client id>' (see "Wake messages" in CONCURRENCY.md)
local lock, owner = KEYS[1], ARGV[1]
local state = redis.call('HMGET', lock, owner, '#w', '#o', '#c')
local held = tonumber(state[1])
if not held then
  return {0}
end
local remaining = give_back(lock, owner, held, ARGV[2])
if remaining > 0 then
  return {1, remaining}
end
redis.call('DEL', lock)
if state[3] and state[4] then
  redis.call('HSET', lock, '#r', state[4])
  redis.call('PEXPIRE', lock, ARGV[5])
end
if state[2] then
  publish(ARGV[3], ARGV[4])
end
return {1, 0}
