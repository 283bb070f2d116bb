-- rw-read-release: gives back one read hold, or what one acquisition took (a give-back); when the
-- owner keeps none and it was the last live reader, wakes the waiters.
-- KEYS[1]  reads hash (see rw-write-acquire.lua)
-- KEYS[2]  readers (see rw-write-acquire.lua)
-- KEYS[3]  wanted flag (see rw-write-acquire.lua)
-- KEYS[4]  the owner's release marker (see lock-release.lua)
-- ARGV[1]  owner id
-- ARGV[2]  as lock-release.lua's ARGV[2]: for a release, the owner's read hold count as the
--          client knows it (it keeps one less); for a give-back, the most holds it keeps
-- ARGV[3]  release channel
-- ARGV[4]  '' for a release; for a give-back, the id of the acquisition it undoes, which
--          'a:<owner>' must still name (see lock-release.lua's ARGV[9])
-- ARGV[5]  this release's id, recorded in KEYS[4] when it ends the hold ('' for a give-back)
-- ARGV[6]  how long the marker lives, in ms
-- ARGV[7]  the token the owner's read hold must still have ('t:<owner>'), or nothing changes
--          ({0}); absent or '': no such condition (see lock-release.lua's ARGV[14]: a hold its
--          client declared lost, released by LockDriver.dropLost)
-- Returns  {1, remaining} when the owner held a live read hold, and also {1, 0} for a replay of
--          the release that ended it; {0} when not and this release did not end it (expired,
--          force-unlocked, lost), or, for a give-back, when the hold is not the undone
--          acquisition's.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
-- Cost: independent of the number of readers.
local reads, readers, wanted, marker, owner = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local now = server_ms()
local held = tonumber(redis.call('HGET', reads, owner))
local deadline = tonumber(redis.call('ZSCORE', readers, owner))
if not held or not deadline or deadline <= now then
  if held then
    drop_reader(reads, readers, owner)
  elseif ARGV[4] == '' and released_before(marker, ARGV[5]) then
    return {1, 0}
  end
  return {0}
end
if ARGV[7] and ARGV[7] ~= '' and redis.call('HGET', reads, 't:' .. owner) ~= ARGV[7] then
  return {0} -- not the hold meant: a lost hold its owner took over since, under a new token
end
local remaining = lower(reads, owner, held, ARGV[2], ARGV[4], 'a:' .. owner)
if not remaining then
  return {0}
end
if remaining > 0 then
  return {1, remaining}
end
drop_reader(reads, readers, owner)
mark_released(marker, ARGV[5], ARGV[6])
if redis.call('ZCOUNT', readers, '(' .. now, '+inf') == 0 and redis.call('DEL', wanted) == 1 then
  publish(ARGV[3], 'all')
end
return {1, 0}
