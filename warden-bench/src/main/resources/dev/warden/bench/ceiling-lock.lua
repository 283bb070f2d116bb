-- ceiling-lock: the shape of an uncontended lock acquisition, for redis-benchmark's ceiling run:
-- what one script call that checks, writes and expires a lock hash costs Redis at best.
-- KEYS[1]  lock hash
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Returns  1
redis.call('EXISTS', KEYS[1])
redis.call('HSET', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
