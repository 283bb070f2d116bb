-- format-mark: the on-Redis format marker (redis.DataFormat). Every Warden client, when it starts,
-- records the format of the data it writes; a client refuses to start where a newer client has
-- written data that its own format cannot share (docs/operations.md, 'Upgrades').
-- KEYS[1]  the marker: a hash with 'format' (the newest format a client has recorded) and 'since'
--          (the oldest format that can share data with every format recorded: the largest of
--          their own 'since', so that a format that shares with older ones, recorded after or
--          before one that does not, never lowers the bar while that one's data may be there);
--          it does not expire
-- ARGV[1]  this client's format
-- ARGV[2]  the oldest format that can share data with this client's
-- ARGV[3]  '1' to record this client's format (raising the marker's format and since where this
--          client's are higher, or where there is none), '0' to only read (warden doctor)
-- Returns  {format, since} as the marker holds them after the call; {0, 0} when there is none and
--          none was recorded
local marker = KEYS[1]
local mine, shares = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call('HMGET', marker, 'format', 'since')
local format, since = tonumber(state[1]), tonumber(state[2])
if ARGV[3] == '1' and (not format or format < mine or since < shares) then
  format, since = math.max(format or mine, mine), math.max(since or shares, shares)
  redis.call('HSET', marker, 'format', format, 'since', since)
  return {format, since}
end
return {format or 0, since or 0}
