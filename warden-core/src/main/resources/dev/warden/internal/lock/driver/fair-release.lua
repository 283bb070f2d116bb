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
-- ARGV[7]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- Returns  {1, remaining, next waiter id or ''} when the owner held the lock;
--          {1, 0, ARGV[4], token} when the lock went straight to that waiter, with a new token;
--          {0} when it holds no hold (expired, force-unlocked, or already released).
-- Wakes    'w:<waiter>' (see "Wake messages" in CONCURRENCY.md)
local DEAD_HEADS = 10 -- dead waiters dropped from the head of the queue per call, at most
local lock, queue, beats, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local held = tonumber(redis.call('HGET', lock, owner))
if not held then
  return {0}
end
local remaining = give_back(lock, owner, held, ARGV[2])
if remaining > 0 then
  return {1, remaining, ''}
end
redis.call('DEL', lock)
local head = live_head(queue, beats, server_ms(), DEAD_HEADS)
if not head then
  return {1, 0, ''}
end
if head ~= ARGV[4] then
  publish(ARGV[3], 'w:' .. head)
  return {1, 0, head}
end
local token = mint_token(KEYS[4], ARGV[7])
grant(lock, head, token, ARGV[6])
redis.call('PEXPIRE', lock, ARGV[5])
redis.call('ZREM', queue, head)
redis.call('ZREM', beats, head)
return {1, 0, head, token}
