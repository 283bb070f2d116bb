-- latch-await: tells whether a latch is open (its count is zero); if not, marks it as awaited so
-- that reaching zero publishes.
-- KEYS[1]  latch (see latch-set.lua)
-- ARGV     none
-- Returns  {1} when the count is zero (or the latch was never set or was deleted); {0} when not.
local latch = KEYS[1]
if redis.call('HEXISTS', latch, 'count') == 0 then
  return {1}
end
redis.call('HSET', latch, '#w', 1)
return {0}
