-- lock-acquire: takes or re-enters the reentrant lock for one owner, in one step.
-- KEYS[1]  lock hash: owner id -> hold count; '#t' -> fencing token of the current hold;
--          '#w' -> present when some acquirer waited (its release must publish);
--          '#a' -> id of the acquisition that last raised the count;
--          '#c' -> the holder's client, as its owner prefix '<client id>:';
--          '#o' -> present when an acquirer waited that the holder's client cannot hand the
--          lock to (another client's, or a multi-lock's): hand-offs then give way to a real
--          release now and then (see lock-transfer.lua)
--          '#r' -> in a lock nobody holds: the client (owner prefix) whose last release reserved
--          it for other clients, because one of theirs waited ('#o'; see lock-release.lua);
--          that client's acquirers are refused until another client takes it or it expires
-- KEYS[2]  fence: what the last fencing token of this lock name was made of (prelude.lua)
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  the owner's hold count as the client knows it before this call
-- ARGV[4]  '1' when other acquirers of the same client wait, so the release must publish
-- ARGV[5]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[6]  this acquisition's id: a retry of it (its first reply lost) finds the count already
--          raised under the same id and changes nothing; a count raised by another, abandoned
--          acquisition of the same owner (given back later) is not mistaken for it
-- ARGV[7]  the owner's client, as its owner prefix '<client id>:'
-- ARGV[8]  '1' when the owner waits if refused (then a refusal by another client's holder marks
--          '#o'), '0' when it does not
-- Returns  {1, token, holdCount} when the owner holds the lock afterwards;
--          {0, pttl} when another owner holds it (pttl: its remaining lease in ms, -1 if none).
local lock, fence = KEYS[1], KEYS[2]
local owner, lease = ARGV[1], tonumber(ARGV[2])

-- Takes the free lock for the owner with a new token; `waited`: somebody waits, so its release
-- must publish.
local function take(waited)
  local token = mint_token(fence, ARGV[5])
  if waited then
    grant(lock, owner, token, ARGV[6], '#c', ARGV[7], '#w', 1)
  else
    grant(lock, owner, token, ARGV[6], '#c', ARGV[7])
  end
  redis.call('PEXPIRE', lock, lease)
  return {1, token, 1}
end

if redis.call('EXISTS', lock) == 0 then
  return take(ARGV[4] == '1')
end

local state = redis.call('HMGET', lock, owner, '#c', '#r', '#w')
if state[3] then
  if state[3] == ARGV[7] then
    redis.call('HSET', lock, '#w', 1) -- whoever takes it publishes its release
    return {0, redis.call('PTTL', lock)}
  end
  redis.call('DEL', lock)
  return take(state[4] or ARGV[4] == '1')
end
local held = state[1]
if not held then
  -- a holder of another client (or of a multi-lock, which records none) cannot hand the lock
  -- to this waiter
  if ARGV[8] == '1' and state[2] ~= ARGV[7] then
    redis.call('HSET', lock, '#w', 1, '#o', 1)
  else
    redis.call('HSET', lock, '#w', 1)
  end
  return {0, redis.call('PTTL', lock)}
end

-- a re-entry (or a replay, whose first run did the same)
held = reenter(lock, owner, held, ARGV[3], ARGV[6], lease)
if ARGV[4] == '1' then
  redis.call('HSET', lock, '#w', 1)
end
return {1, redis.call('HGET', lock, '#t'), held}
