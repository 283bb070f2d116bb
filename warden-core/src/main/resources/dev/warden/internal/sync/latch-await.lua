-- latch-await: tells whether a latch is open (its count is zero) or was opened since the awaiter
-- first looked; if not, marks it as awaited so that reaching zero publishes.
-- KEYS[1]  latch (see latch-set.lua)
-- ARGV[1]  the arming this awaiter first found ('' on its first look): the 's' the latch had then
-- ARGV[2]  idle expiry, ms: a latch still counting lives that long after this look ('0': for ever)
-- Returns  {1} when the count is zero (or the latch was never set or was deleted), or when the
--          latch is counting under another arming than ARGV[1] (it reached zero, or was deleted,
--          and was set again since the awaiter first looked: it missed no opening);
--          {0, arming} when it still counts under the arming the awaiter found ('' for a latch
--          set before armings were recorded).
local latch, found = KEYS[1], ARGV[1] or ''
local state = redis.call('HMGET', latch, 'count', 's')
if not state[1] then
  return {1}
end
local arming = state[2] or ''
if found ~= '' and arming ~= found then
  return {1}
end
redis.call('HSET', latch, '#w', 1)
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', latch, ARGV[2])
end
return {0, arming}
