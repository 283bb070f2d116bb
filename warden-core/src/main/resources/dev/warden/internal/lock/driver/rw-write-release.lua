-- rw-write-release: gives back one write hold; with the last one, wakes everybody who waits
-- (all waiting readers together, and waiting writers).
-- KEYS[1]  write hash (see rw-write-acquire.lua)
-- KEYS[2]  wanted flag (see rw-write-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's write hold count as the client knows it
-- ARGV[3]  release channel
-- Returns  {1, remaining} when the owner held it; {0} when it holds no write hold.
-- Wakes    'all' (see "Wake messages" in CONCURRENCY.md)
local write, wanted, owner = KEYS[1], KEYS[2], ARGV[1]
local held = tonumber(redis.call('HGET', write, owner))
if not held then
  return {0}
end
local remaining = give_back(write, owner, held, ARGV[2])
if remaining > 0 then
  return {1, remaining}
end
redis.call('DEL', write)
if redis.call('DEL', wanted) == 1 then
  publish(ARGV[3], 'all')
end
return {1, 0}
