-- semaphore-update: applies one operation to a semaphore in one step and wakes the waiters it lets in.
-- KEYS[1]  free permits, a string; absent until first set or released (then counted as zero)
-- KEYS[2]  queue: waiting acquisitions in arrival order (zset: entry '<permits>:<waiter id>' ->
--          arrival, server microseconds, strictly rising). Its head has its permits reserved:
--          nobody else may take them.
-- KEYS[3]  deadlines: when each queue entry lapses unless its waiter refreshes it (zset: entry ->
--          server ms), so that a waiter that died holds up the queue only briefly
-- KEYS[4]  marker of this operation, '<amount>' while it lives: a replay (a retry after a lost
--          reply) finds it and changes nothing. For 'leave': the marker of the leaving acquisition,
--          whose grant, if one was made, goes back to the pool.
-- ARGV[1]  operation:
--            'take'   takes ARGV[2] permits if that many are free beyond those the head needs
--            'wait'   the same, or else queues the entry ARGV[3] (or refreshes its deadline)
--            'add'    adds ARGV[2] permits (removes them if negative)
--            'set'    sets the free permits to ARGV[2] if they were never set
--            'drain'  takes all free permits
--            'leave'  takes the entry ARGV[3] off the queue and gives back a grant it missed
-- ARGV[2]  permits
-- ARGV[3]  the caller's queue entry '<permits>:<waiter id>' ('take', 'wait', 'leave'), else ''
-- ARGV[4]  queue entry lease: how long an entry lives without a refresh, ms
-- ARGV[5]  marker lifetime, ms
-- ARGV[6]  release channel. A message '<n> <waiter id>' asks for the named head of the queue and
--          n others to be woken; '<n>', for n waiters.
-- ARGV[7]  idle expiry, ms: the free permits live that long after this call ('0': for ever)
-- Returns  {1, amount, free}: applied, now or by an earlier run of the same call; amount is the
--          number of permits taken, added, set, drained or given back; free, those free after.
--          {0, free}: not applied: too few permits free ('take', 'wait'), set already ('set').
--          {-1, free}: not applied: 'add' would leave more than 2^31-1 (or fewer than -2^31) free.
-- Wakes    '<n> <waiter>' or '<n>' (see "Wake messages" in CONCURRENCY.md)
local LAPSED_ENTRIES = 10 -- lapsed queue entries dropped per look at the head, at most
local permits, queue, deadlines, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op, amount, entry = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local idle = tonumber(ARGV[7] or '0')

-- Keeps the free permits alive for the idle expiry from now, if they exist and one is set.
local function keep()
  if idle > 0 then
    redis.call('PEXPIRE', permits, idle)
  end
end
keep() -- every call, a waiter's look included; the calls below that make or SET the key again

local function free()
  return tonumber(redis.call('GET', permits) or '0')
end

-- Returns the head of the queue and the permits it needs, after dropping at most LAPSED_ENTRIES
-- lapsed entries (bounded work); nil when the queue is empty or its head lapsed too (a later call
-- drops more; meanwhile nothing is reserved). The server clock (server_ms, server_us: see the
-- prelude) is read once, so an entry's arrival and its deadline come from the same reading.
local function head(now)
  local lapsed = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now, 'LIMIT', 0, LAPSED_ENTRIES)
  if #lapsed > 0 then
    redis.call('ZREM', queue, unpack(lapsed))
    redis.call('ZREM', deadlines, unpack(lapsed))
  end
  local first = redis.call('ZRANGE', queue, 0, 0)[1]
  if not first then
    return nil, 0
  end
  local deadline = redis.call('ZSCORE', deadlines, first)
  if not deadline or tonumber(deadline) <= now then
    return nil, 0
  end
  return first, tonumber(string.match(first, '^(%d+):'))
end

-- Publishes when the head can now take its permits (naming its waiter, with the count of permits
-- left over for others), or when nobody heads the queue but free permits may serve its waiters.
local function wake(available)
  if redis.call('EXISTS', queue) == 0 then
    return
  end
  local first, needs = head(server_ms())
  if first then
    if available >= needs then
      publish(ARGV[6],
        string.format('%d %s', available - needs, string.match(first, '^%d+:(.*)$')))
    end
  elseif available > 0 then
    publish(ARGV[6], string.format('%d', available))
  end
end

if op == 'leave' then
  redis.call('ZREM', queue, entry)
  redis.call('ZREM', deadlines, entry)
  local missed = tonumber(redis.call('GET', marker) or '0')
  if missed > 0 then
    redis.call('DEL', marker)
    redis.call('INCRBY', permits, missed)
    keep() -- INCRBY makes the key if the semaphore expired while the grant was in doubt
  end
  local available = free()
  wake(available)
  return {1, missed, available}
end

local done = redis.call('GET', marker)
if done then
  return {1, tonumber(done), free()}
end
local available = free()

if op == 'take' or op == 'wait' then
  local now, first, needs = nil, nil, 0
  local queued = redis.call('EXISTS', queue) == 1
  if queued then
    now = server_ms()
    first, needs = head(now)
  end
  local reserved = 0
  if first and first ~= entry then
    reserved = needs
  end
  if available - reserved >= amount then
    redis.call('DECRBY', permits, amount)
    redis.call('SET', marker, amount, 'PX', ARGV[5])
    if queued then
      redis.call('ZREM', queue, entry)
      redis.call('ZREM', deadlines, entry)
      if first == entry then
        wake(available - amount) -- the next in line may be able to go now
      end
    end
    return {1, amount, available - amount}
  end
  if op == 'wait' then
    now = now or server_ms()
    local lease = tonumber(ARGV[4])
    if not redis.call('ZSCORE', queue, entry) then
      -- after everyone queued before, even within the same microsecond (ties would otherwise
      -- be ordered by the entries' names)
      local arrival = server_us()
      local last = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')[2]
      if last and tonumber(last) >= arrival then
        arrival = tonumber(last) + 1
      end
      redis.call('ZADD', queue, arrival, entry)
    end
    redis.call('ZADD', deadlines, now + lease, entry)
    redis.call('PEXPIRE', queue, lease)
    redis.call('PEXPIRE', deadlines, lease)
  end
  return {0, available}
end

if op == 'add' then
  if available + amount > INT32_MAX or available + amount < INT32_MIN then
    return {-1, available}
  end
  available = redis.call('INCRBY', permits, amount)
  keep() -- INCRBY may have made the key
  redis.call('SET', marker, amount, 'PX', ARGV[5])
  if amount > 0 then
    wake(available)
  end
  return {1, amount, available}
end

if op == 'set' then
  if redis.call('EXISTS', permits) == 1 then
    return {0, available}
  end
  redis.call('SET', permits, amount)
  keep()
  redis.call('SET', marker, amount, 'PX', ARGV[5])
  wake(amount)
  return {1, amount, amount}
end

if op == 'drain' then
  if available ~= 0 then
    redis.call('SET', permits, 0)
    keep()
  end
  redis.call('SET', marker, available, 'PX', ARGV[5])
  return {1, available, 0}
end

return redis.error_reply('ERR semaphore-update: unknown operation ' .. tostring(op))
