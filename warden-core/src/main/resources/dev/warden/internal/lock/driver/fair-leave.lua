-- fair-leave: takes a waiter that gave up (timed out, interrupted) out of the queue at once.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- KEYS[3]  heartbeats (see fair-acquire.lua)
-- KEYS[4]  entries (see fair-acquire.lua)
-- ARGV[1]  waiter (owner id)
-- ARGV[2]  release channel
-- ARGV[3]  the id of the acquisition that gave up: only the entry it made leaves (also when its
--          reply was lost, so that it never learnt its ticket); an entry of the owner made by a
--          later acquisition stays, whatever its ticket (its record: prelude.lua's queue_entry)
-- Returns  {1} when the acquisition was queued (and is no more), {0} when it was not. If it was
--          first in line and the lock is free, the next waiter is told.
-- Wakes    'w:<waiter>', on the channel of the waiter's client alone: ARGV[2] .. ':<client id>'
--          (or on ARGV[2] too when nobody received it there: prelude.lua's publish_to; see "Wake
--          messages" in CONCURRENCY.md)
local lock, queue, beats, entries, owner = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
if queue_entry(redis.call('HGET', entries, owner)) ~= ARGV[3] then
  return {0}
end
redis.call('HDEL', entries, owner)
local first = redis.call('ZRANGE', queue, 0, 0)
local removed = redis.call('ZREM', queue, owner)
redis.call('ZREM', beats, owner)
if removed == 1 and first[1] == owner and redis.call('EXISTS', lock) == 0 then
  local next = redis.call('ZRANGE', queue, 0, 0)
  if #next > 0 then
    publish_to(ARGV[2], next[1], 'w:' .. next[1])
  end
end
return {removed}
