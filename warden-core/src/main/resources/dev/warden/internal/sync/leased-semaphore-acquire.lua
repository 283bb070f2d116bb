-- leased-semaphore-acquire: returns expired permits to the pool, then leases a free permit under
-- the caller's id.
-- KEYS[1]  semaphore: a hash, 'permits' -> free permits (absent until set: none);
--          '#w' -> present when an acquirer waits, so that the next release publishes
-- KEYS[2]  leases: permit id -> when its lease ends (zset, server ms)
-- ARGV[1]  permit id: new and random. A replay (a retry after a lost reply) finds its lease and
--          takes nothing more.
-- ARGV[2]  lease, ms
-- ARGV[3]  '1' when the caller waits if no permit is free: it marks the semaphore
-- ARGV[4]  '1' when other acquirers of the same client wait: marks it even when a permit is taken
-- ARGV[5]  how long the mark keeps a never-set semaphore's hash alive, ms
-- ARGV[6]  release channel; the message is the number of permits that became free
-- ARGV[7]  idle expiry, ms: the semaphore lives that long after its last lease ends ('0': for ever)
-- Returns  {1} when the caller holds the permit;
--          {0, ms} when none is free: ms until the earliest lease ends (-1 when none is leased).
-- Wakes    '<n>' (see "Wake messages" in CONCURRENCY.md)
local EXPIRED_LEASES = 100 -- leases that ended returned to the pool per call, at most
local semaphore, leases, id = KEYS[1], KEYS[2], ARGV[1]
local now = server_ms()

-- Expired permits return to the pool here, at most EXPIRED_LEASES per call so that no call's
-- work grows with the number of leases; the waiters' next attempts, due when the earliest lease
-- ends, return the rest.
local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, EXPIRED_LEASES)
if #expired > 0 then
  redis.call('ZREM', leases, unpack(expired))
  redis.call('HINCRBY', semaphore, 'permits', #expired)
end
local mine = redis.call('ZSCORE', leases, id)
if mine then
  if tonumber(mine) > now then
    keep_leased(semaphore, leases, ARGV[7])
    return {1}
  end
  redis.call('ZREM', leases, id) -- a replay of a grant whose lease ended meanwhile
  redis.call('HINCRBY', semaphore, 'permits', 1)
end

local free = tonumber(redis.call('HGET', semaphore, 'permits') or '0')
if free > 0 then
  redis.call('HINCRBY', semaphore, 'permits', -1)
  redis.call('ZADD', leases, now + tonumber(ARGV[2]), id)
  if #expired > 0 and free > 1 and redis.call('HDEL', semaphore, '#w') == 1 then
    publish(ARGV[6], string.format('%d', free - 1))
  end
  if ARGV[4] == '1' then
    redis.call('HSET', semaphore, '#w', 1)
  end
  keep_leased(semaphore, leases, ARGV[7])
  return {1}
end

if ARGV[3] == '1' then
  redis.call('HSET', semaphore, '#w', 1)
  if redis.call('HEXISTS', semaphore, 'permits') == 0 then
    redis.call('PEXPIRE', semaphore, ARGV[5]) -- only the mark: gone if permits are never set
  end
end
keep_leased(semaphore, leases, ARGV[7])
local earliest = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')[2]
if earliest then
  return {0, math.max(1, tonumber(earliest) - now)}
end
return {0, -1}
