-- lock-renew: resets the lease of many holds in one call (the lease keeper's batch).
-- KEYS[i]    lock hash of the i-th hold
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  owner id of the i-th hold
-- Returns    a list with, for each hold, 1 when the owner still held it (its lease was reset)
--            and 0 when it did not (expired, force-unlocked, lost with a restart, or the key
--            now holds another type of value).
local lease = ARGV[1]
local renewed = {}
for i, lock in ipairs(KEYS) do
  local held = redis.pcall('HEXISTS', lock, ARGV[i + 1])
  if held == 1 then
    redis.call('PEXPIRE', lock, lease)
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
