-- latch-delete: deletes a latch, whatever its count, and wakes all its awaiters (they find it open).
-- KEYS[1]  latch (see latch-set.lua)
-- ARGV[1]  release channel: 'all' is published to it when somebody awaited the latch
-- Returns  {1} when the latch existed; {0} when it did not.
-- Raises   WRONGTYPE when the key holds something that is not a latch: it is not deleted.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local latch = KEYS[1]
local awaited = redis.call('HEXISTS', latch, '#w')
if redis.call('DEL', latch) == 0 then
  return {0}
end
if awaited == 1 then
  publish(ARGV[1], 'all')
end
return {1}
