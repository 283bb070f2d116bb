-- quorum-fence-raise: raises a lock's fence to a token minted elsewhere (the quorum lock's token,
-- the largest of its majority), so that the next token minted here ranks above it. Never lowers.
-- KEYS[1]  fence: the hash {e, c[, r]} of the lock's last token (prelude.lua's mint_token)
-- ARGV[1]  the token's epoch e
-- ARGV[2]  the token's count c (token = e * 2^47 + c)
-- ARGV[3]  the fence's retention in ms, set when this call creates the fence
-- Returns  {1} when the fence was raised, {0} when it already stood at or above the token.
local fence = KEYS[1]
local e, c = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call('HMGET', fence, 'e', 'c')
local se, sc = tonumber(state[1]), tonumber(state[2])
if se and (se > e or (se == e and sc >= c)) then
  return {0}
end
redis.call('HSET', fence, 'e', e, 'c', string.format('%.0f', c))
if not se then
  redis.call('PEXPIRE', fence, tonumber(ARGV[3]))
end
return {1}
