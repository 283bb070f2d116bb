-- rw-read-query: reads the read side of a read-write lock as of the server's clock.
-- KEYS[1]  reads hash (see rw-write-acquire.lua)
-- KEYS[2]  readers (see rw-write-acquire.lua)
-- ARGV[1]  owner id ('' for none)
-- Returns  {live readers, the owner's live read hold count, its token or -1,
--           ms until the last live read lease ends, or -2 when nobody reads}
local reads, readers, owner = KEYS[1], KEYS[2], ARGV[1]
local now = server_ms()
local live = redis.call('ZCOUNT', readers, '(' .. now, '+inf')
local count, token = 0, -1
local deadline = tonumber(redis.call('ZSCORE', readers, owner))
if deadline and deadline > now then
  count = tonumber(redis.call('HGET', reads, owner) or '0')
  token = redis.call('HGET', reads, 't:' .. owner) or -1
end
local ttl = -2
if live > 0 then
  local last = redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')
  ttl = tonumber(last[2]) - now
end
return {live, count, token, ttl}
