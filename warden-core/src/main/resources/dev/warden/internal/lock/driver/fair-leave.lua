-- fair-leave: takes a waiter that gave up (timed out, interrupted) out of the queue at once.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- KEYS[3]  heartbeats (see fair-acquire.lua)
-- ARGV[1]  waiter (owner id)
-- ARGV[2]  release channel
-- ARGV[3]  the ticket of the acquisition that gave up ('' when it never learnt one: an attempt
--          whose reply was lost may have queued it): an entry of the owner under another ticket
--          belongs to a later acquisition of the same owner, and stays
-- Returns  {1} when the waiter was queued (and is no more), {0} when it was not. If it was first
--          in line and the lock is free, the next waiter is told.
-- Wakes    'w:<waiter>' (see "Wake messages" in CONCURRENCY.md)
local lock, queue, beats, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local first = redis.call('ZRANGE', queue, 0, 0)
if ARGV[3] ~= '' and tonumber(redis.call('ZSCORE', queue, owner)) ~= tonumber(ARGV[3]) then
  return {0}
end
local removed = redis.call('ZREM', queue, owner)
redis.call('ZREM', beats, owner)
if removed == 1 and first[1] == owner and redis.call('EXISTS', lock) == 0 then
  local next = redis.call('ZRANGE', queue, 0, 0)
  if #next > 0 then
    publish(ARGV[2], 'w:' .. next[1])
  end
end
return {removed}
