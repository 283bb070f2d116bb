-- latch-set: sets the count of a latch that is not counting (never set, or down to zero).
-- KEYS[1]  latch: a hash, 'count' -> the count; 's' -> this arming (the name of the marker of
--          the call that set it, unique), so that an awaiter can tell a latch that opened and was
--          set again (latch-await.lua); '#w' -> present when somebody awaits the latch. Absent
--          while the count is zero.
-- KEYS[2]  marker of this call: a replay (a retry after a lost reply) finds it and changes nothing
-- ARGV[1]  count, at least 1
-- ARGV[2]  marker lifetime, ms
-- ARGV[3]  idle expiry, ms: the latch lives that long after this call ('0': for ever)
-- Returns  {1} when the count was set, now or by an earlier run of this call;
--          {0} when the latch is counting already.
local latch, marker = KEYS[1], KEYS[2]
if redis.call('EXISTS', marker) == 1 then
  return {1}
end
-- HEXISTS, not EXISTS: a key of another type under the latch's name fails (WRONGTYPE) instead of
-- passing for a counting latch
if redis.call('HEXISTS', latch, 'count') == 1 then
  return {0}
end
redis.call('HSET', latch, 'count', ARGV[1], 's', marker)
if tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', latch, ARGV[3])
end
redis.call('SET', marker, 1, 'PX', ARGV[2])
return {1}
