-- leased-semaphore-count: counts the free permits, those whose lease ended included (they are
-- free even before a later call returns them to the pool). Changes nothing.
-- KEYS[1]  semaphore (see leased-semaphore-acquire.lua)
-- KEYS[2]  leases: permit id -> when its lease ends (zset, server ms)
-- Returns  {free}
local semaphore, leases = KEYS[1], KEYS[2]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local free = tonumber(redis.call('HGET', semaphore, 'permits') or '0')
return {free + redis.call('ZCOUNT', leases, '-inf', now)}
