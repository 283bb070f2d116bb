-- fair-release: gives back one hold of the fair lock, or what one acquisition took (a give-back);
-- when no hold is left, hands the lock to the head of the queue.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- KEYS[3]  heartbeats (see fair-acquire.lua)
-- KEYS[4]  fence counter (see fair-acquire.lua)
-- KEYS[5]  the owner's release marker (see lock-release.lua)
-- KEYS[6]  entries (see fair-acquire.lua): the record of a waiter that leaves the queue goes too
-- ARGV[1]  owner id
-- ARGV[2]  as lock-release.lua's ARGV[2]: for a release, the owner's hold count as the client
--          knows it (it keeps one less); for a give-back, the most holds it keeps
-- ARGV[3]  release channel: the head waiter is told by a message 'w:<its id>', nobody else
-- ARGV[4]  a parked waiter of the releasing client that may take the lock at once if it is the
--          head ('' for none): the client then completes its acquisition without a message and
--          without another script call
-- ARGV[5]  that waiter's lease in ms
-- ARGV[6]  that waiter's acquisition id, recorded in '#a' (see lock-transfer.lua's ARGV[4])
-- ARGV[7]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[8]  '' for a release; for a give-back, the id of the acquisition it undoes (see
--          lock-release.lua's ARGV[9])
-- ARGV[9]  this release's id, recorded in KEYS[5] when it ends the hold ('' for a give-back)
-- ARGV[10] how long the marker lives, in ms
-- ARGV[11] the token the owner's hold must still have ('#t'), or nothing changes ({0}); absent or
--          '': no such condition (see lock-release.lua's ARGV[14]: a hold its client declared
--          lost, released by LockDriver.dropLost)
-- ARGV[12] the grant lease, in ms (as lock-release.lua's ARGV[12]): how long a direct grant holds
--          the lock for its waiter before the waiter confirms it; absent or '': no direct grant
--          (the client wake-up mode, whose recording twin could not know who hears the message)
-- Returns  {1, remaining, next waiter id or ''} when the owner held the lock, and also {1, 0, ''}
--          for a replay of the release that ended the hold (it finds its own marker);
--          {1, 0, ARGV[4], token} when the lock went straight to that waiter, with a new token;
--          {1, 0, head, token, 1} when it granted the lock directly to the head, another client's
--          waiter ('Grants');
--          {0} when it holds no hold and this release did not end it (expired, force-unlocked,
--          lost), or, for a give-back, when the hold is not the undone acquisition's.
-- Wakes    'w:<waiter>', on the channel of the waiter's client alone: ARGV[3] .. ':<client id>'
--          (or on ARGV[3] too when nobody received it there: prelude.lua's publish_to; see "Wake
--          messages" in CONCURRENCY.md); or, for a direct grant, 'granted <token> <acquisition id>
--          <owner id>' on that channel only
-- Grants   (direct grant) a last release (or give-back) whose live head is a waiter of another
--          client than the releasing owner's, recorded as taking grants (its KEYS[6] record
--          '<acquisition id> <lease>', written by its refused fair-acquire: ARGV[10] there), gives
--          the lock to that waiter in this script when its client hears its own channel of the
--          lock (prelude.lua's tell_listening): the waiter holds it once, under a new token, with
--          '#a' its acquisition id, leaves the queue (its queue, heartbeat and record go), and the
--          hash lives min(its lease, ARGV[12]) ms until the waiter confirms by its first renewal
--          (lock-renew.lua, sent as soon as its client takes the grant). The message goes to that
--          client alone. So: a lost message costs the waiter one re-check (its next fair-acquire
--          finds the hold '#a' names as a replay of its acquisition and takes it, with a new
--          token; its heartbeat call also finds its entry gone and wakes it); an acquisition that
--          ended before the grant arrived gives it back by its id and the grant's token (ARGV[8],
--          ARGV[11]: changes nothing once a replay or a later acquisition of the owner took it
--          over), and that give-back's own last release grants on; a process gone before the
--          grant is not granted (nobody listens: the wake-up 'w:<head>' as before), one gone after
--          it keeps the others out for the grant lease at most. No grant to a record without a
--          lease (a waiter with an explicit lease, a client of a previous version or in the client
--          wake-up mode), to a head of the releasing client (its own hand-off above, or the
--          wake-up), nor from the recording twin (tell_listening is false): the wake-up as before.
-- Cost: independent of the queue's length (only its head is looked at; at most DEAD_HEADS dead
-- heads are dropped per call).
local DEAD_HEADS = 10 -- dead waiters dropped from the head of the queue per call, at most
local lock, queue, beats, marker, owner = KEYS[1], KEYS[2], KEYS[3], KEYS[5], ARGV[1]
local held = tonumber(redis.call('HGET', lock, owner))
if not held then
  if ARGV[8] == '' and released_before(marker, ARGV[9]) then
    return {1, 0, ''}
  end
  return {0}
end
if ARGV[11] and ARGV[11] ~= '' and redis.call('HGET', lock, '#t') ~= ARGV[11] then
  return {0} -- not the hold meant: a lost hold its owner took over since, under a new token
end
local remaining = lower(lock, owner, held, ARGV[2], ARGV[8], '#a')
if not remaining then
  return {0}
end
if remaining > 0 then
  return {1, remaining, ''}
end
redis.call('DEL', lock)
mark_released(marker, ARGV[9], ARGV[10])
local head = live_head(queue, beats, server_ms(), DEAD_HEADS, KEYS[6])
if not head then
  return {1, 0, ''}
end

-- Gives the lock to `head` under a new token for `acquisition`, for `lease` ms, and takes it out of
-- the queue.
local function take(token, acquisition, lease)
  grant(lock, head, token, acquisition)
  redis.call('PEXPIRE', lock, lease)
  redis.call('ZREM', queue, head)
  redis.call('ZREM', beats, head)
  redis.call('HDEL', KEYS[6], head)
end

if head == ARGV[4] then
  local token = mint_token(KEYS[4], ARGV[7])
  take(token, ARGV[6], ARGV[5])
  return {1, 0, head, token}
end
if ARGV[12] and ARGV[12] ~= '' and string.match(head, '^[^:]*') ~= string.match(owner, '^[^:]*')
then
  -- (direct grant) see 'Grants'
  local acquisition, lease = queue_entry(redis.call('HGET', KEYS[6], head))
  if lease then
    local token = mint_token(KEYS[4], ARGV[7])
    if tell_listening(ARGV[3], head, 'granted ' .. token .. ' ' .. acquisition .. ' ' .. head) then
      take(token, acquisition, math.min(lease, tonumber(ARGV[12])))
      return {1, 0, head, token, 1}
    end
  end
end
publish_to(ARGV[3], head, 'w:' .. head)
return {1, 0, head}
