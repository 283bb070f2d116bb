-- server-probe: checks in one call that this server lets the connected user run, from a script,
-- every command Warden's scripts call (and the reads the client sends), so that build() can name
-- a refusal before the first acquisition meets it (redis.Capabilities). Every call is made with
-- redis.pcall, so one refusal does not hide the others; each is a no-op on the probe key, or undone
-- before the script ends (the key never exists outside it).
-- KEYS[1]: the probe key, in Warden's namespace (warden:{...}:probe)
-- ARGV[1]: the channel to publish on (sharing the key's hash tag), ARGV[2]: '1' on a cluster
-- Returns: a flat list of pairs, command name then the server's error, for each call that failed;
--   empty when every call was allowed. Errors about arguments (not an integer) mean "allowed".
-- It publishes an empty message on the probe channel, which no waiter listens to: it is none of
-- the "Wake messages" in CONCURRENCY.md.
local key, channel, cluster = KEYS[1], ARGV[1], ARGV[2] == '1'
local failed = {}

local function try(name, ...)
  local reply = redis.pcall(...)
  if type(reply) == 'table' and reply.err then
    failed[#failed + 1] = name
    failed[#failed + 1] = reply.err
  end
end

try('time', 'TIME')
if cluster then
  try('spublish', 'SPUBLISH', channel, '')
  try('cluster|myid', 'CLUSTER', 'MYID')
  try('cluster|info', 'CLUSTER', 'INFO')
  try('info', 'INFO', 'replication') -- the master's tenure (prelude.lua's master_tenure)
else
  try('publish', 'PUBLISH', channel, '')
  -- who subscribes an addressed wake-up's channel itself (prelude.lua's publish_to)
  try('pubsub|numsub', 'PUBSUB', 'NUMSUB', channel)
end
-- reads, on a key that does not exist
try('exists', 'EXISTS', key)
try('get', 'GET', key)
try('type', 'TYPE', key)
try('pttl', 'PTTL', key)
try('hget', 'HGET', key, 'f')
try('hmget', 'HMGET', key, 'f')
try('hexists', 'HEXISTS', key, 'f')
try('hgetall', 'HGETALL', key)
try('zcard', 'ZCARD', key)
try('zcount', 'ZCOUNT', key, 0, 1)
try('zrange', 'ZRANGE', key, 0, 0)
try('zrangebyscore', 'ZRANGEBYSCORE', key, 0, 1)
try('zscore', 'ZSCORE', key, 'm')
-- writes that change nothing: on a missing key, conditional, or refused for their argument
try('set', 'SET', key, 'v', 'XX')
try('incrby', 'INCRBY', key, 'x')
try('decrby', 'DECRBY', key, 'x')
try('hincrby', 'HINCRBY', key, 'f', 'x')
try('hdel', 'HDEL', key, 'f')
try('persist', 'PERSIST', key)
try('pexpire', 'PEXPIRE', key, 1000)
try('zadd', 'ZADD', key, 'XX', 1, 'm')
try('zrem', 'ZREM', key, 'm')
try('zremrangebyscore', 'ZREMRANGEBYSCORE', key, 1, 0)
-- writes that do change the key, undone by the DEL below
try('hset', 'HSET', key, 'f', 'v')
try('incr', 'INCR', key) -- on the hash: refused for its type, after the permission check
try('del', 'DEL', key)
return failed
