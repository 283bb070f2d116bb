-- rw-write-release: gives back one write hold, or what one acquisition took (a give-back); when no
-- write hold is left, wakes everybody who waits (all waiting readers together, and waiting
-- writers).
-- KEYS[1]  write hash (see rw-write-acquire.lua)
-- KEYS[2]  wanted flag (see rw-write-acquire.lua)
-- KEYS[3]  the owner's release marker (see lock-release.lua)
-- ARGV[1]  owner id
-- ARGV[2]  as lock-release.lua's ARGV[2]: for a release, the owner's write hold count as the
--          client knows it (it keeps one less); for a give-back, the most holds it keeps
-- ARGV[3]  release channel
-- ARGV[4]  '' for a release; for a give-back, the id of the acquisition it undoes (see
--          lock-release.lua's ARGV[9])
-- ARGV[5]  this release's id, recorded in KEYS[3] when it ends the hold ('' for a give-back)
-- ARGV[6]  how long the marker lives, in ms
-- ARGV[7]  the token the owner's write hold must still have ('#t'), or nothing changes ({0});
--          absent or '': no such condition (see lock-release.lua's ARGV[14]: a hold its client
--          declared lost, released by LockDriver.dropLost)
-- Returns  {1, remaining} when the owner held it, and also {1, 0} for a replay of the release
--          that ended the hold; {0} when it holds no write hold and this release did not end it,
--          or, for a give-back, when the hold is not the undone acquisition's.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local write, wanted, marker, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local held = tonumber(redis.call('HGET', write, owner))
if not held then
  if ARGV[4] == '' and released_before(marker, ARGV[5]) then
    return {1, 0}
  end
  return {0}
end
if ARGV[7] and ARGV[7] ~= '' and redis.call('HGET', write, '#t') ~= ARGV[7] then
  return {0} -- not the hold meant: a lost hold its owner took over since, under a new token
end
local remaining = lower(write, owner, held, ARGV[2], ARGV[4], '#a')
if not remaining then
  return {0}
end
if remaining > 0 then
  return {1, remaining}
end
redis.call('DEL', write)
mark_released(marker, ARGV[5], ARGV[6])
if redis.call('DEL', wanted) == 1 then
  publish(ARGV[3], 'all')
end
return {1, 0}
