-- leased-semaphore-count: counts the free permits, those whose lease ended included (they are
-- free even before a later call returns them to the pool). Changes nothing.
-- KEYS[1]  semaphore (see leased-semaphore-acquire.lua)
-- KEYS[2]  leases: permit id -> when its lease ends (zset, server ms)
-- ARGV     none
-- Returns  {free}
local semaphore, leases = KEYS[1], KEYS[2]
local now = server_ms()
local free = tonumber(redis.call('HGET', semaphore, 'permits') or '0')
return {free + redis.call('ZCOUNT', leases, '-inf', now)}
