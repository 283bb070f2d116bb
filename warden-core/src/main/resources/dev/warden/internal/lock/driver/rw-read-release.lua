-- rw-read-release: gives back one read hold; when the last live reader leaves, wakes the waiters.
-- KEYS[1]  reads hash (see rw-write-acquire.lua)
-- KEYS[2]  readers (see rw-write-acquire.lua)
-- KEYS[3]  wanted flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's read hold count as the client knows it
-- ARGV[3]  release channel
-- Returns  {1, remaining} when the owner held a live read hold; {0} when not (expired,
--          force-unlocked, or already released).
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
-- Cost: independent of the number of readers.
local reads, readers, wanted, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local now = server_ms()
local held = tonumber(redis.call('HGET', reads, owner))
local deadline = tonumber(redis.call('ZSCORE', readers, owner))
if not held or not deadline or deadline <= now then
  if held then
    drop_reader(reads, readers, owner)
  end
  return {0}
end
local remaining = give_back(reads, owner, held, ARGV[2])
if remaining > 0 then
  return {1, remaining}
end
drop_reader(reads, readers, owner)
if redis.call('ZCOUNT', readers, '(' .. now, '+inf') == 0 and redis.call('DEL', wanted) == 1 then
  publish(ARGV[3], 'all')
end
return {1, 0}
