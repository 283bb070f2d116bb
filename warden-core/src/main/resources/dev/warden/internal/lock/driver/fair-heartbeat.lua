-- fair-heartbeat: keeps the queue entries of one client's parked waiters of a fair lock alive, in
-- one call for all of them (their client sends one per heartbeat period instead of each waiter
-- asking again).
-- KEYS[1]  queue (see fair-acquire.lua)
-- KEYS[2]  heartbeats (see fair-acquire.lua)
-- KEYS[3]  ticket counter (see fair-acquire.lua)
-- KEYS[4]  entries: waiter -> the acquisition its queue entry was made for (see fair-acquire.lua)
-- ARGV[1]  heartbeat timeout in ms: each entry counts as alive for this long from now
-- ARGV[2k], ARGV[2k+1]  for k = 1..n: a waiter (owner id) and its acquisition's id
-- Returns  the positions k (1-based, ascending) of the waiters that have no queue entry made for
--          that acquisition (dropped after a late heartbeat, left, replaced by a later acquisition
--          of the same owner, or granted the lock: fair-release.lua's 'Grants', whose waiter's next
--          attempt takes the grant). Nothing is written for them: a heartbeat never makes an
--          entry, so one that arrives after its waiter left changes nothing; a waiter dropped while
--          alive takes its place again with its own next attempt (fair-acquire.lua's ARGV[7]).
-- Cost: O(n log(queue length)).
local KEY_LIFE = 4 -- as fair-acquire.lua
local RENEW_BELOW = 3 -- as fair-acquire.lua
local queue, beats, tickets, entries = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local timeout = tonumber(ARGV[1])
local deadline = server_ms() + timeout
local gone = {}
local alive = 0
for k = 1, (#ARGV - 1) / 2 do
  local waiter, acquisition = ARGV[2 * k], ARGV[2 * k + 1]
  if queue_entry(redis.call('HGET', entries, waiter)) == acquisition
      and redis.call('ZSCORE', queue, waiter) then
    redis.call('ZADD', beats, deadline, waiter)
    alive = alive + 1
  else
    gone[#gone + 1] = k
  end
end
-- the queue's keys live while some waiter is alive; the four expire together (see fair-acquire.lua)
if alive > 0 and redis.call('PTTL', queue) < timeout * RENEW_BELOW then
  redis.call('PEXPIRE', queue, timeout * KEY_LIFE)
  redis.call('PEXPIRE', beats, timeout * KEY_LIFE)
  redis.call('PEXPIRE', tickets, timeout * KEY_LIFE)
  redis.call('PEXPIRE', entries, timeout * KEY_LIFE)
end
return gone
