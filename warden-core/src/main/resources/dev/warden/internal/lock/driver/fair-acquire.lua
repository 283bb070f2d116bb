-- fair-acquire: takes the fair lock if it is free and the caller is first in line, else queues it.
-- KEYS[1]  lock hash: owner id -> hold count; '#t' -> fencing token (as lock-acquire.lua)
-- KEYS[2]  fence counter (as lock-acquire.lua)
-- KEYS[3]  queue: waiter (owner id) -> ticket; the order in which waiters first asked
-- KEYS[4]  heartbeats: waiter -> deadline (server ms) after which it counts as dead
-- KEYS[5]  ticket counter
-- KEYS[6]  entries: waiter -> the id of the acquisition its queue entry was made for, so that the
--          leave of an acquisition that ended takes out only its own entry (fair-leave.lua); a
--          waiter's record goes with its entry, however that leaves the queue (granted here or by
--          fair-release.lua's hand-off or direct grant, dropped as dead, or left), so the hash
--          never holds more than the queue. A waiter that takes a direct grant (ARGV[10]) records
--          '<acquisition id> <lease ms>': a last release may then grant it the lock for
--          min(lease, grant lease) ms (fair-release.lua's 'Grants'); any other records the id alone
--          (prelude.lua's queue_entry reads both). Only the waiter's own client writes or compares
--          its record (owner ids begin with their client's id, and a client runs one version), so
--          a previous version's scripts, which compare the record with an acquisition id, only
--          ever meet records they wrote themselves: the id alone, never granted
-- ARGV[1]  owner id
-- ARGV[2]  lease in ms
-- ARGV[3]  the owner's hold count as the client knows it (see lock-acquire.lua's ARGV[3])
-- ARGV[4]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[5]  '1' to join the queue when refused (the caller waits), '0' not to (tryLock())
-- ARGV[6]  heartbeat timeout in ms: a waiter that has not asked again for this long is dead
-- ARGV[7]  the ticket this acquisition was given before ('' if none): its place in the queue. A
--          waiter dropped for a late heartbeat takes its old place again; an acquisition without
--          a ticket gets a new one (at the end), even where an earlier acquisition of the same
--          owner left an entry (its leave still on its way: that leave names its acquisition,
--          fair-leave.lua, and cannot take the new one's place)
-- ARGV[8]  release channel
-- ARGV[9]  this acquisition's id (see lock-acquire.lua's ARGV[6]), also recorded in KEYS[6] for
--          its queue entry
-- ARGV[10] '1' when the waiter takes a direct grant (its client hears grant messages, and its
--          lease is one the lease keeper renews, so that its first renewal confirms the grant):
--          its lease is recorded beside its acquisition id in KEYS[6]; absent or '0': not
-- Returns  {1, token, holdCount} when the owner holds the lock afterwards (as lock-acquire.lua);
--          {0, retryAfterMs, ticket} when refused (ticket -1 when not queued).
-- Wakes    'w:<waiter>', on the channel of the waiter's client alone: ARGV[8] .. ':<client id>'
--          (or on ARGV[8] too when nobody received it there: prelude.lua's publish_to; see "Wake
--          messages" in CONCURRENCY.md)
-- Cost: independent of the queue's length (only its head is looked at, and only when the lock is
-- free; at most DEAD_HEADS dead heads are dropped per call).
local DEAD_HEADS = 10 -- dead waiters dropped from the head of the queue per call, at most
local KEY_LIFE = 4 -- how long the queue's keys live, in heartbeat timeouts
local RENEW_BELOW = 3 -- renew them when fewer heartbeat timeouts than this are left
local lock, fence, queue, beats, tickets, entries = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, lease = ARGV[1], tonumber(ARGV[2])
local timeout = tonumber(ARGV[6])
local now = server_ms()

local held = redis.call('HGET', lock, owner)
if held then
  local token
  held, token = reenter_fenced(lock, fence, ARGV[4], owner, held, ARGV[3], ARGV[9], lease)
  return {1, token, held}
end

-- PTTL: -2 when the lock is free; while another owner holds it, its queue needs no look
local pttl = redis.call('PTTL', lock)
local free = pttl == -2
local head, headDeadline, crowded = nil, nil, false
if free then
  -- the first live waiter; dead ones in front of it leave the queue
  local cleaned
  head, headDeadline, cleaned = live_head(queue, beats, now, DEAD_HEADS, entries)
  crowded = head == nil and redis.call('ZCARD', queue) > 0 -- more dead heads than we drop
  if not crowded and (head == nil or head == owner) then
    local token = mint_token(fence, ARGV[4])
    grant(lock, owner, token, ARGV[9])
    redis.call('PEXPIRE', lock, lease)
    redis.call('ZREM', queue, owner)
    redis.call('ZREM', beats, owner)
    redis.call('HDEL', entries, owner)
    return {1, token, 1}
  end
  if cleaned and head and head ~= owner then
    -- the lock is free and the new head may not know it yet
    publish_to(ARGV[8], head, 'w:' .. head)
  end
end

local ticket = -1
if ARGV[5] == '1' then
  local fresh = false -- a key made just now, without an expiry yet
  if ARGV[7] ~= '' then
    ticket = tonumber(ARGV[7])
  else
    ticket = redis.call('INCR', tickets)
    fresh = ticket == 1
  end
  if tonumber(redis.call('ZSCORE', queue, owner)) ~= ticket then
    redis.call('ZADD', queue, ticket, owner)
  end
  redis.call('ZADD', beats, now + timeout, owner)
  -- the entry's acquisition: a ticket does not name it (an acquisition whose reply was lost never
  -- learnt its ticket, and a restart from an older file brings the counter back, so that a later
  -- acquisition of the owner can get the same ticket again)
  redis.call('HSET', entries, owner, ARGV[10] == '1' and (ARGV[9] .. ' ' .. ARGV[2]) or ARGV[9])
  fresh = fresh or redis.call('PTTL', entries) < 0
  -- The queue's keys live while some waiter is alive: they are given KEY_LIFE heartbeat timeouts
  -- whenever fewer than RENEW_BELOW are left (the four always expire together; a key made just
  -- now has none), so they outlive a waiter's heartbeat deadline by at least RENEW_BELOW - 1.
  if fresh or redis.call('PTTL', queue) < timeout * RENEW_BELOW then
    redis.call('PEXPIRE', queue, timeout * KEY_LIFE)
    redis.call('PEXPIRE', beats, timeout * KEY_LIFE)
    redis.call('PEXPIRE', tickets, timeout * KEY_LIFE)
    redis.call('PEXPIRE', entries, timeout * KEY_LIFE)
  end
end

local retry = pttl
if free then
  retry = crowded and 1 or (headDeadline - now) -- the head takes it, or is dropped as dead
end
return {0, retry, ticket}
