-- lock-acquire-all: takes several reentrant locks of one hash slot at once, or none of them
-- (a multi-lock's parts that one script can reach).
-- KEYS[2i-1]  lock hash of the i-th lock (see lock-acquire.lua)
-- KEYS[2i]    fence counter of the i-th lock (see lock-acquire.lua)
-- ARGV[1]     owner id
-- ARGV[2]     lease in ms
-- ARGV[3]     fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[4]     this acquisition's id, recorded in each lock's '#a' (see lock-acquire.lua)
-- ARGV[4+i]   the owner's hold count of the i-th lock as the client knows it: a lock the owner
--             holds gets count known + 1 (see lock-acquire.lua's ARGV[3])
-- Returns     {1, token1, count1, token2, count2, ...} when the owner holds every lock afterwards;
--             {0, i, pttl, mine} when the i-th lock is held by another owner: nothing was taken
--             now, and that lock is marked so that its release publishes and its hand-offs give
--             way ('#w', '#o': see lock-acquire.lua); mine is 1 when the owner holds a part that
--             this acquisition raised last (an earlier run of it, whose reply was lost, took it):
--             the client gives such parts back (by this acquisition's id) rather than keep them
--             while it waits for the i-th, else 0.
local owner, lease, id = ARGV[1], tonumber(ARGV[2]), ARGV[4]
local n = #KEYS / 2
local reserved = {}
-- whether the owner holds a part this acquisition raised last
local function mine()
  for j = 1, n do
    local state = redis.call('HMGET', KEYS[2 * j - 1], owner, '#a')
    if state[1] and state[2] == id then
      return 1
    end
  end
  return 0
end
for i = 1, n do
  local lock = KEYS[2 * i - 1]
  -- held by another owner; a lock only reserved for other clients ('#r', or nominated for one:
  -- '#n'; no holder: see lock-release.lua) is free for a multi-lock, which no hand-off reaches
  local exists = redis.call('EXISTS', lock) == 1
  reserved[i] = exists and redis.call('HEXISTS', lock, '#t') == 0
  if exists and not reserved[i] and not redis.call('HGET', lock, owner) then
    -- a multi-lock waiter is never handed a part: the holder must release now and then
    redis.call('HSET', lock, '#w', 1, '#o', 1)
    return {0, i, redis.call('PTTL', lock), mine()}
  end
end
local taken = {1}
for i = 1, n do
  local lock, fence = KEYS[2 * i - 1], KEYS[2 * i]
  local held = redis.call('HGET', lock, owner)
  local token
  if held then
    held, token = reenter_fenced(lock, fence, ARGV[3], owner, held, ARGV[4 + i], id, lease)
  else
    token = mint_token(fence, ARGV[3])
    local kept = reserved[i] and redis.call('HMGET', lock, '#w', '#q')
    if kept and kept[2] then
      redis.call('DEL', lock)
      grant(lock, owner, token, id, '#w', 1, '#o', 1, '#q', kept[2]) -- the clients keep their turns
    elseif kept and kept[1] then
      redis.call('DEL', lock)
      grant(lock, owner, token, id, '#w', 1) -- the reserving client's acquirers wait
    elseif reserved[i] then
      redis.call('DEL', lock)
      grant(lock, owner, token, id)
    else
      grant(lock, owner, token, id)
    end
    redis.call('PEXPIRE', lock, lease)
    held = 1
  end
  taken[#taken + 1] = token
  taken[#taken + 1] = held
end
return taken
