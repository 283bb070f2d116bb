-- fair-release: gives back one hold of the fair lock; with the last one, hands it to the head.
-- KEYS[1]  lock hash (see fair-acquire.lua)
-- KEYS[2]  queue (see fair-acquire.lua)
-- KEYS[3]  heartbeats (see fair-acquire.lua)
-- KEYS[4]  fence counter (see fair-acquire.lua)
-- ARGV[1]  owner id
-- ARGV[2]  the owner's hold count as the client knows it (a replayed call changes nothing)
-- ARGV[3]  release channel: the head waiter is told by a message 'w:<its id>', nobody else
-- ARGV[4]  a parked waiter of the releasing client that may take the lock at once if it is the
--          head ('' for none): the client then completes its acquisition without a message and
--          without another script call
-- ARGV[5]  that waiter's lease in ms
-- ARGV[6]  that waiter's acquisition id (see lock-acquire.lua: its own retry changes nothing)
-- ARGV[7]  fence counter retention in ms
-- Returns  {1, remaining, next waiter id or ''} when the owner held the lock;
--          {1, 0, ARGV[4], token} when the lock went straight to that waiter, with a new token;
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
  local head = first[1]
  local deadline = tonumber(redis.call('ZSCORE', beats, head))
  if deadline and deadline > now then
    if head ~= ARGV[4] then
      redis.call('PUBLISH', ARGV[3], 'w:' .. head)
      return {1, 0, head}
    end
    local token = redis.call('INCR', KEYS[4])
    if token == 1 then
      token = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
      redis.call('SET', KEYS[4], string.format('%.0f', token), 'PX', ARGV[7])
    end
    redis.call('HSET', lock, head, 1, '#t', string.format('%.0f', token), '#a', ARGV[6])
    redis.call('PEXPIRE', lock, ARGV[5])
    redis.call('ZREM', queue, head)
    redis.call('ZREM', beats, head)
    return {1, 0, head, token}
  end
  redis.call('ZREM', queue, first[1])
  redis.call('ZREM', beats, first[1])
end
return {1, 0, ''}
