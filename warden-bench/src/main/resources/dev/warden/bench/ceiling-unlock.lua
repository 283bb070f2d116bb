-- ceiling-unlock: the shape of a lock's last release, for redis-benchmark's ceiling run: read the
-- owner's count and whether somebody waits, and delete the hash.
-- KEYS[1]  lock hash
-- ARGV[1]  owner id
-- Returns  1 when the owner held it, 0 when not
local state = redis.call('HMGET', KEYS[1], ARGV[1], '#w')
if not state[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
