-- lock-release: gives back one hold of the reentrant lock; deletes the lock with the last one.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's hold count as the client knows it before this call; a replayed call
--          finds the count already lowered and changes nothing
-- ARGV[3]  release channel, published to when an acquirer waited
-- ARGV[4]  the message: 'released <client id>' (the releasing client woke its own waiters
--          already and ignores it; other clients wake one waiter, or only the nominated one)
-- ARGV[5]  '1' when the release ends a full row of hand-offs between this client's threads (see
--          lock-transfer.lua) while a waiter of another client was refused ('#o'): when no client
--          is listed to take its turn ('#q': the waiter was a multi-lock's), the lock is then kept
--          from this client for ARGV[7] ms ('#r'), so that it changes client; '0' otherwise
-- ARGV[6]  how long, in ms, a last release keeps the lock for the client it nominates (the first
--          that '#q' lists) before anybody may take it: its turn ('#n', '#d': lock-acquire.lua)
-- ARGV[7]  see ARGV[5]
-- ARGV[8]  how long, in ms, the hash of a lock nominated for a client lives (its waiting clients
--          with it): longer than ARGV[6], so that after a turn nobody took, the next acquirer of
--          any client finds the rest of the list
-- Returns  {1, remaining} when the owner held the lock (remaining: its holds afterwards);
--          {0} when the owner holds no hold: the lease ran out, the lock was force-unlocked,
--          or (for a replayed last release) it was released already; the client tells which.
-- Wakes    'released <client id>' (see "Wake messages" in CONCURRENCY.md), or
--          'released <client id> <nominated client id>' when it nominated a client: only that
--          client wakes a waiter
local lock, owner = KEYS[1], ARGV[1]
local state = redis.call('HMGET', lock, owner, '#w', '#o', '#c', '#q')
local held = tonumber(state[1])
if not held then
  return {0}
end
local remaining = give_back(lock, owner, held, ARGV[2])
if remaining > 0 then
  return {1, remaining}
end
redis.call('DEL', lock)
local queue = state[5]
if queue and queue ~= '' then
  -- the first client listed takes its turn; the others stay listed, in order
  local cut = string.find(queue, ':', 1, true)
  local nominee, rest = string.sub(queue, 1, cut), string.sub(queue, cut + 1)
  local ends = tonumber(ARGV[8]) - tonumber(ARGV[6]) -- the turn ends when the PTTL falls to this
  if rest ~= '' then
    redis.call('HSET', lock, '#n', nominee, '#d', ends, '#q', rest)
  else
    redis.call('HSET', lock, '#n', nominee, '#d', ends)
  end
  redis.call('PEXPIRE', lock, ARGV[8])
  publish(ARGV[3], ARGV[4] .. ' ' .. string.sub(nominee, 1, cut - 1))
  return {1, 0}
end
if state[3] and state[4] and ARGV[5] == '1' then
  redis.call('HSET', lock, '#r', state[4])
  redis.call('PEXPIRE', lock, ARGV[7])
end
if state[2] then
  publish(ARGV[3], ARGV[4])
end
return {1, 0}
