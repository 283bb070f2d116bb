-- lock-release: gives back one hold of the reentrant lock, or gives back what one acquisition took
-- (a give-back); deletes the lock when no hold is left.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- KEYS[2]  the owner's release marker: the id of its release that ended its hold last (a string
--          key, living ARGV[11] ms; see prelude.lua's mark_released)
-- KEYS[3]  fence (see lock-acquire.lua), for a direct grant's token (optional: without ARGV[12]
--          the release grants nothing)
-- ARGV[1]  owner id
-- ARGV[2]  for a release: the owner's hold count as the client knows it before this call; the
--          owner keeps one less, whatever Redis counted, so a replay changes nothing more.
--          For a give-back: the most holds the owner keeps (the undone acquisition's own count
--          before it; 0 to end the hold)
-- ARGV[3]  release channel, published to when an acquirer waited; a nomination goes to the
--          nominee's own channel of the lock instead, ARGV[3] .. ':<client id>', which only that
--          client subscribes (and to this one too when nobody received it there: prelude.lua's
--          publish_to)
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
-- ARGV[9]  '' for a release; for a give-back, the id of the acquisition it undoes: nothing
--          happens unless '#a' still names it (see prelude.lua's lower)
-- ARGV[10] this release's id (the same for each retry of it), recorded in KEYS[2] when it ends
--          the hold; '' for a give-back
-- ARGV[11] how long the marker lives, in ms
-- ARGV[12] the grant lease, in ms: how long a direct grant holds the lock for its waiter before
--          the waiter confirms it (its first renewal, sent as soon as its client takes the grant,
--          sets its full lease); absent or '': no direct grant (the nomination below)
-- ARGV[13] fence terms, for a direct grant (see prelude.lua's mint_token)
-- ARGV[14] the token the owner's hold must still have ('#t'), or nothing changes ({0}); absent or
--          '': no such condition. Sent (1) by the give-back of a direct grant its client did not
--          deliver: the grant's token (a replay of the acquisition, which mints a new one, took the
--          grant: it stays); (2) by the release of a hold its client declared lost, when no renewal
--          answered before its lease deadline (LockDriver.dropLost: ARGV[2] 1, ARGV[9] and ARGV[10]
--          ''): renewals that reached Redis late may have kept it, and it ends now; an owner's later
--          acquisition took any such hold over under a new token, which this leaves alone
-- Returns  {1, remaining} when the owner held the lock (remaining: its holds afterwards), and also
--          {1, 0} for a replay of the release that ended the hold (it finds its own marker);
--          {1, 0, 1} when the release granted the lock directly to another waiter;
--          {0} when the owner holds no hold and this release did not end it (the lease ran out,
--          the lock was force-unlocked or lost with Redis data), or, for a give-back, when the
--          hold is not (any more) the undone acquisition's: nothing changed.
-- Wakes    'released <client id>' (see "Wake messages" in CONCURRENCY.md), or
--          'released <client id> <nominated client id>' when it nominated a client, on that
--          client's own channel: only that client hears it (one delivery), and it wakes a waiter;
--          on the shared channel too when nobody received it there (a client of a previous
--          version listens there only)
-- Grants  (direct grant) a last release whose first listed client ('#q') registered a waiter
--          ('#g<owner prefix>', written by that waiter's refused attempts: lock-acquire.lua) gives
--          the lock to that waiter in this script, when that client hears its own channel of the
--          lock (prelude.lua's tell_listening): the waiter holds it once, under a new token,
--          recorded as raised by its acquisition ('#a'), so that its own next attempt finds it as
--          a replay (a lost message costs one re-check) and a give-back by its id undoes it; the
--          hash lives min(its lease, ARGV[12]) ms until the waiter confirms. The message
--          'granted <token> <acquisition id> <owner id>' goes to that client alone; the client
--          leaves '#q' and its registration goes (the other clients' stay: the hash is not
--          deleted); with nobody else listed, '#q', '#o' and '#w' go, as when a nominated
--          client takes the lock. Nobody listening there (a process gone), no registration, or the recording
--          twin (WakeUps.FROM_CLIENT, whose client publishes after the reply): no grant, the
--          nomination as above. A registration whose waiter left is granted all the same: its
--          client gives the grant back by the acquisition id (lock-release, ARGV[9]), whose own
--          last release grants to the next client; a registration lives as long as the hash, and
--          a deletion of the hash (a release nominating, a take of a nominated or reserved lock)
--          drops them all (the next refusals write them again). A registration of the releasing
--          owner itself is never granted (the nomination): a multi-lock's part records no client
--          ('#c'), so a waiter of the multi-lock's own client that asked Redis before its client
--          knew of that hold was refused as by another client's and registered; its client's
--          transfer (lock-transfer.lua) then handed it the part and kept the registration, which
--          would give this owner's last release back to its own acquisition that is over
local lock, marker, owner = KEYS[1], KEYS[2], ARGV[1]
local state = redis.call('HMGET', lock, owner, '#w', '#o', '#c', '#q')
local held = tonumber(state[1])
if not held then
  if ARGV[9] == '' and released_before(marker, ARGV[10]) then
    return {1, 0}
  end
  return {0}
end
if ARGV[14] and ARGV[14] ~= '' and redis.call('HGET', lock, '#t') ~= ARGV[14] then
  return {0} -- not the hold meant: a grant its acquisition took by a replay, or a lost hold taken over
end
local remaining = lower(lock, owner, held, ARGV[2], ARGV[9], '#a')
if not remaining then
  return {0}
end
if remaining > 0 then
  return {1, remaining}
end
-- (direct grant) Grants the lock to `nominee`'s registered waiter, if it has one and its client
-- hears its channel; returns whether it did (see 'Grants' above). The hash is kept: the other
-- clients' registrations stay.
local function grant_to(nominee, rest)
  if not ARGV[12] or ARGV[12] == '' then
    return false
  end
  local field = '#g' .. nominee
  local entry = redis.call('HGET', lock, field)
  if not entry then
    return false
  end
  local lease, acquisition, waiter = string.match(entry, '^(%d+) (%S+) (.+)$')
  if waiter == owner then
    return false -- its own wait, over (see 'Grants'): the releaser's client nominated
  end
  local token = mint_token(KEYS[3], ARGV[13])
  if not tell_listening(ARGV[3], nominee, 'granted ' .. token .. ' ' .. acquisition .. ' ' .. waiter)
  then
    return false
  end
  redis.call('HDEL', lock, owner, field)
  if rest == '' then
    -- as a nominated lock's taker with nobody else listed (lock-acquire.lua): nobody is known to
    -- wait that the waiter's release must tell
    redis.call('HDEL', lock, '#q', '#o', '#w')
  end
  grant(lock, waiter, token, acquisition, '#c', nominee)
  if rest ~= '' then
    redis.call('HSET', lock, '#q', rest)
  end
  redis.call('PEXPIRE', lock, math.min(tonumber(lease), tonumber(ARGV[12])))
  return true
end

local queue = state[5]
local nominee, rest, cut
if queue and queue ~= '' then
  -- the first client listed takes its turn; the others stay listed, in order
  cut = string.find(queue, ':', 1, true)
  nominee, rest = string.sub(queue, 1, cut), string.sub(queue, cut + 1)
  if grant_to(nominee, rest) then
    mark_released(marker, ARGV[10], ARGV[11])
    return {1, 0, 1}
  end
end
redis.call('DEL', lock)
mark_released(marker, ARGV[10], ARGV[11])
if nominee then
  local ends = tonumber(ARGV[8]) - tonumber(ARGV[6]) -- the turn ends when the PTTL falls to this
  if rest ~= '' then
    redis.call('HSET', lock, '#n', nominee, '#d', ends, '#q', rest)
  else
    redis.call('HSET', lock, '#n', nominee, '#d', ends)
  end
  redis.call('PEXPIRE', lock, ARGV[8])
  publish_to(ARGV[3], nominee, ARGV[4] .. ' ' .. string.sub(nominee, 1, cut - 1))
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
