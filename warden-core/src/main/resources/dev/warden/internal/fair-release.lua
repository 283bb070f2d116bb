-- fair-release: gives back one hold of the fair lock; with the last one, hands it to the head.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- KEYS[3]  heartbeats (see fair-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's hold count as the client knows it (a replayed call changes nothing)
-- ARGV[3]  release channel: the head waiter is told by a message 'w:<its id>', nobody else
-- Returns  {1, remaining, next waiter id or ''} when the owner held the lock;
--          {0} when it holds no hold (expired, force-unlocked, or already released).
local lock, queue, beats, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local held = tonumber(redis.call('HGET', lock, owner))
if not held then
  return {0}
end
if held < tonumber(ARGV[2]) then
  return {1, held, ''}
end
if held > 1 then
  return {1, redis.call('HINCRBY', lock, owner, -1), ''}
end
redis.call('DEL', lock)
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for _ = 1, 10 do
  local first = redis.call('ZRANGE', queue, 0, 0)
  if #first == 0 then
    break
  end
  local deadline = tonumber(redis.call('ZSCORE', beats, first[1]))
  if deadline and deadline > now then
    redis.call('PUBLISH', ARGV[3], 'w:' .. first[1])
    return {1, 0, first[1]}
  end
  redis.call('ZREM', queue, first[1])
  redis.call('ZREM', beats, first[1])
end
return {1, 0, ''}
