-- prelude: local functions shared by every Warden script. The loader (ScriptLoader.java) puts this
-- file in front of each script's own text before it computes the SHA-1, so EVALSHA still sends only
-- the digest and a call costs nothing more. Nothing here calls Redis until a script calls it.
-- Line numbers: an error Redis reports in a script counts this prelude's lines too; subtract its
-- length (wc -l prelude.lua) to find the line in the script's own file.
-- Everything here is local: a script sees these names, Redis sees no globals.

-- The largest and smallest free-permit counts a semaphore keeps (a Java int).
local INT32_MAX, INT32_MIN = 2147483647, -2147483648

-- How wake-ups are published: PUBLISH, or SPUBLISH on Redis Cluster, where subscribers listen on
-- the channel's shard (Script.sharded() swaps this one line, so the sharded twin has its own SHA);
-- false in the recording twin (Script.recording(), for servers that refuse PUBLISH in scripts),
-- which records them in `recorded` for its client to publish after the reply (recording-reply.lua).
local PUBLISH = 'PUBLISH'
local recorded = {} -- channel, message, fallback channel ('' for none), channel, message, ...

-- Publishes (or, in the recording twin, records) a wake-up message on a release channel (which
-- shares its object's hash tag). Returns how many clients received it; nil when it was recorded
-- (nobody can tell yet). In the recording twin, `fallback` (optional) is a channel its client
-- publishes the same message on when nobody received it on `channel` (publish_to).
local function publish(channel, message, fallback)
  if PUBLISH then
    return redis.call(PUBLISH, channel, message)
  end
  recorded[#recorded + 1] = channel
  recorded[#recorded + 1] = message
  recorded[#recorded + 1] = fallback or ''
  return nil
end

-- The channel that reaches one client alone: the object's release channel, ':' and the client
-- id, which is what `owner` starts with (an owner id '<client id>:<...>', or an owner prefix
-- '<client id>:'). It keeps the object's hash tag, so on Redis Cluster it lives in the object's
-- slot (the script's SPUBLISH stays on its shard). Every client that waits on the object
-- subscribes to it beside the shared channel (Subscriptions.java), so a message published here is
-- delivered once, to that client, instead of to every waiting client.
local function addressed(channel, owner)
  return channel .. ':' .. string.match(owner, '^[^:]*')
end

-- Publishes a wake-up message for the client that `owner` names alone, on its own channel of the
-- object (addressed); when nobody received it there, on the shared `channel` too: the client may
-- be of a previous version, which listens on the shared channel only (a rolling deploy), or not
-- subscribed any more. The recording twin records the shared channel as the fallback, and its
-- client publishes there only when PUBLISH on the addressed channel reached nobody.
-- PUBLISH's count also takes in the clients whose pattern matches (a monitoring tool's PSUBSCRIBE
-- *), which would keep the fallback from ever firing: when it counts anybody, the channel's own
-- subscribers (PUBSUB NUMSUB, which the documented ACL rule allows) decide. SPUBLISH (a cluster)
-- counts no patterns. The recording twin's client decides from its own PUBLISH's count.
local function publish_to(channel, owner, message)
  local to = addressed(channel, owner)
  local heard = publish(to, message, channel)
  if heard and heard > 0 and PUBLISH == 'PUBLISH' then
    heard = redis.call('PUBSUB', 'NUMSUB', to)[2]
  end
  if heard == 0 then
    publish(channel, message)
  end
end

-- Sends a message to the client that `owner` names alone, on its own channel of the object
-- (addressed), only where that client is known to hear it there: returns true when it was sent
-- and the channel's own subscribers heard it, false when nobody subscribes to that channel (a
-- client gone, or of a version without such a channel: the message reached no client), and false
-- in the recording twin, which sends nothing: its client publishes after the reply, and a script
-- cannot know who will hear it. One server: PUBSUB NUMSUB of the channel decides before the
-- PUBLISH (PUBLISH's own count takes in pattern subscribers, which act on nothing). A cluster:
-- SPUBLISH's count, which takes in no patterns (0: the message went to nobody).
local function tell_listening(channel, owner, message)
  if not PUBLISH then
    return false
  end
  local to = addressed(channel, owner)
  if PUBLISH == 'PUBLISH' then
    if redis.call('PUBSUB', 'NUMSUB', to)[2] == 0 then
      return false
    end
    redis.call(PUBLISH, to, message)
    return true
  end
  return redis.call(PUBLISH, to, message) > 0
end

-- The server clock: TIME is read at most once per run (the script runs as one instant, so every
-- deadline it writes and every token it mints come from the same reading), and only when a
-- script first asks.
local server_time
local function server_clock()
  if not server_time then
    server_time = redis.call('TIME')
  end
  return server_time
end

-- The server clock in milliseconds.
local function server_ms()
  local time = server_clock()
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The server clock in microseconds.
local function server_us()
  local time = server_clock()
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- Fencing tokens: token = epoch * 2^47 + count, as a decimal string (Lua's numbers are doubles,
-- exact only up to 2^53; a token reaches 2^63). A lock's fence is a hash: e (the epoch of its
-- last token), c (the count: in units of 10 microseconds of the server clock since 2020-01-01,
-- plus one per token minted faster than that) and, on Redis Cluster, r (the tenure that last
-- read this node's config epoch for it: see cluster_epoch).
--   * The epoch orders tokens across failovers without clocks: a failover always raises it (the
--     new master's cluster config epoch; Sentinel's config epoch, passed by the client; 0 on one
--     server), so the first token of a new master ranks above every token of the old one, even
--     those a lagging replica never received.
--   * The count restarts from the clock, never below it: a restart from an older RDB/AOF file,
--     or a fence that expired, brings back an old count, and max(count + 1, clock) still rises,
--     as long as the server clock does not go back (and one lock mints fewer than 100,000 tokens
--     a second: faster, the count runs ahead of the clock).
-- docs/fencing.md gives the whole argument, case by case. 2^47 units of 10 us last until 2064;
-- epochs up to 65535 fit a Java long.
local FENCE_EPOCH_SPAN = 140737488355328 -- 2^47
local FENCE_EPOCH_MAX = 65535
local FENCE_CLOCK_START_S = 1577836800 -- 2020-01-01T00:00:00Z

-- The token e * 2^47 + c as an exact decimal string. Below 2^53 (every epoch below 64) one double
-- holds it exactly (e * 2^47 is exact, and a sum below 2^53 is not rounded); above, 2^47 =
-- 14073748 * 10^7 + 8355328 is computed in two limbs of base 10^7, each exact in a double.
local function fence_token(e, c)
  local token = e * FENCE_EPOCH_SPAN + c
  if token < 9007199254740992 then -- 2^53
    return string.format('%.0f', token)
  end
  local low = e * 8355328 + c % 10000000
  local high = e * 14073748 + math.floor(c / 10000000) + math.floor(low / 10000000)
  return string.format('%.0f%07.0f', high, low % 10000000)
end

-- The server clock in fence units (10 us) since 2020-01-01.
local function fence_clock()
  local time = server_clock()
  return (tonumber(time[1]) - FENCE_CLOCK_START_S) * 100000 + math.floor(tonumber(time[2]) / 10)
end

-- This master's tenure: its replication ID (INFO replication's master_replid), or nil when INFO
-- is refused or does not say. A tenure is one process's unbroken time as a master: Redis makes a
-- new random 160-bit ID when a process starts as a master (an RDB file's ID becomes its
-- secondary ID) and when a replica is promoted, and a replica, which never mints (writes are
-- refused there), takes its master's ID. So no two tenures share an ID. (Redis also makes a new
-- ID within a tenure, e.g. when a master long without replicas frees its backlog: that only
-- makes the next token of each fence read the epoch again.)
local function master_tenure()
  local info = redis.pcall('INFO', 'replication')
  if type(info) ~= 'string' then
    return nil
  end
  local at = string.find(info, 'master_replid:', 1, true)
  return at and string.match(info, '^%x+', at + 14)
end

-- The epoch a cluster node mints with, `e` and `r` being the fence's epoch and tenure, and the
-- tenure to record in the fence (nil: the fence's record stands). The node's config epoch, from
-- CLUSTER INFO (about 10 us of Redis time, for its loop over every slot), is read once per fence
-- per tenure: a fence that this tenure raised to the node's epoch already (r is this tenure's ID)
-- has e >= that epoch, which cannot have been lost since, as only a restart or a demotion loses
-- this node's writes, and either ends the tenure. Every other fence reads it: one written by
-- another node (a failover, a slot migration), by an earlier tenure of this node (one brought
-- back by a restart from an older RDB file, whose epoch the node's nodes.conf has outgrown: seen
-- by `warden chaos` when the fence's own record was trusted across the restart), or none.
local function cluster_epoch(e, r)
  local tenure = master_tenure()
  if e and tenure and tenure == r then
    return e, nil
  end
  local info = redis.call('CLUSTER', 'INFO')
  return tonumber(string.match(info, 'cluster_my_epoch:(%d+)')), tenure
end

-- Mints the next fencing token of a lock, `terms` being '<retention ms>:<epoch>' (see
-- Scripts.fenceTerms): the larger of (stored epoch, count + 1) and (current epoch, clock), in
-- that order. A fence created now lives `retention` ms; minting does not prolong it, and one
-- that expired restarts from the clock. Writes only the fields that change.
local function mint_token(fence, terms)
  local retention, given = string.match(terms, '^(%d+):(%w+)$')
  local state, now, tenure
  if given == 'cluster' then
    state = redis.call('HMGET', fence, 'e', 'c', 'r')
    now, tenure = cluster_epoch(tonumber(state[1]), state[3])
  else
    state = redis.call('HMGET', fence, 'e', 'c')
    now = tonumber(given)
  end
  local e, c = tonumber(state[1]), tonumber(state[2])
  now = math.min(now, FENCE_EPOCH_MAX)
  local clock = fence_clock()
  -- c is passed as a number: Redis writes it in full (%.17g, or the shortest exact form since
  -- Redis 7.2), exact below 2^53; Lua's own tostring would keep only 14 digits
  if not e or now > e then
    e, c = now, clock
    if tenure then
      redis.call('HSET', fence, 'e', e, 'c', c, 'r', tenure)
    else
      redis.call('HSET', fence, 'e', e, 'c', c)
    end
  else
    c = math.max(c + 1, clock)
    if tenure then
      redis.call('HSET', fence, 'c', c, 'r', tenure)
    else
      redis.call('HSET', fence, 'c', c)
    end
  end
  if not state[1] then
    redis.call('PEXPIRE', fence, retention)
  end
  return fence_token(e, c)
end

-- The last token a fence minted, or nil.
local function last_token(fence)
  local state = redis.call('HMGET', fence, 'e', 'c')
  if not state[1] then
    return nil
  end
  return fence_token(tonumber(state[1]), tonumber(state[2]))
end

-- Writes a new hold record: `owner` holds the lock once, under `token`, raised by `acquisition`
-- ('#t' and '#a': see lock-acquire.lua). More field-value pairs may follow.
local function grant(hash, owner, token, acquisition, ...)
  redis.call('HSET', hash, owner, 1, '#t', token, '#a', acquisition, ...)
end

-- The same for a read hold, whose token and acquisition live under 't:<owner>' and 'a:<owner>'
-- (see rw-write-acquire.lua).
local function grant_read(reads, owner, token, acquisition)
  redis.call('HSET', reads, owner, 1, 't:' .. owner, token, 'a:' .. owner, acquisition)
end

-- The counts: the client's count is the truth for the client. An acquisition carries `known`, the
-- owner's hold count as its client knows it, and its id; it sets the owner's count to known + 1 and
-- records the id in the hash (`field`: '#a', or 'a:<owner>' for a read hold). A release carries
-- `known` too and leaves known - 1. So after every acquisition and release Redis counts what the
-- client counts, whatever a rewind (a restart from an older file, a failover) or an abandoned
-- acquisition had left there before; and a give-back names the acquisition it undoes (lower()).

-- Raises an owner's hold (it holds one, `held` as HGET read it) for `acquisition`: sets the count to
-- known + 1 and records the acquisition under `field`. A replay of the same acquisition (its first
-- reply lost: `field` names it already) keeps the count. Returns the count, and whether the hold
-- is one the client does not know of (known 0), which must get a new token: one raised by another
-- acquisition (a rewind brought it back, or an acquisition that gave up got it) is taken over as
-- this one's, with count 1; and a first acquisition's own, replayed, was never seen by its client
-- (a rewind may have brought it back after tokens were issued to others, which the rewind lost).
-- A re-entry's replay (known > 0) keeps the token its client knows. `recorded`: what `field` holds,
-- when the caller read it already in this run (false when absent); nil reads it here.
local function raise(hash, owner, held, known, acquisition, field, recorded)
  if recorded == nil then
    recorded = redis.call('HGET', hash, field)
  end
  if recorded == acquisition then
    return tonumber(held), tonumber(known) == 0
  end
  local count = tonumber(known) + 1
  redis.call('HSET', hash, owner, count, field, acquisition)
  return count, count == 1
end

-- Raises an owner's hold of a lock hash (raise, under '#a'), gives the hash at least `lease` ms
-- (never shortens the lease an outer hold asked for), and returns the count and the token: a new
-- one, written to '#t', for a hold the client did not know of. `recorded` and `token`: '#a' and
-- '#t' as the caller read them already in this run (false when absent), or nil to read them here;
-- nothing but this function writes either in between.
local function reenter_fenced(hash, fence, terms, owner, held, known, acquisition, lease, recorded,
                              token)
  local count, unknown = raise(hash, owner, held, known, acquisition, '#a', recorded)
  if redis.call('PTTL', hash) < lease then
    redis.call('PEXPIRE', hash, lease)
  end
  if unknown then
    token = mint_token(fence, terms)
    redis.call('HSET', hash, '#t', token)
  elseif token == nil then
    token = redis.call('HGET', hash, '#t')
  end
  return count, token
end

-- Ends an owner's read hold: its count, token and acquisition in the reads hash, and its lease
-- among the readers (see rw-write-acquire.lua).
local function drop_reader(reads, readers, owner)
  redis.call('HDEL', reads, owner, 't:' .. owner, 'a:' .. owner)
  redis.call('ZREM', readers, owner)
end

-- Lowers an owner's hold (it holds `held` > 0) by a release or a give-back, and returns the holds
-- it keeps; 0 when none, which the caller then ends with its usual side effects (the owner's field
-- is left to it). nil when a give-back does not apply.
--   * A release (`undo` is ''): `count` is the owner's count as the client knows it before; the
--     owner keeps count - 1, whatever Redis counted (a replay keeps the same).
--   * A give-back (`undo` names an acquisition): only while `field` still names that acquisition,
--     whose count is then exactly what it set (every other change of the count rewrites or clears
--     the field); it is undone: the owner keeps held - 1, and at most `count` (0: nothing).
--     When the field names another acquisition, or none, nil: the hold is no longer the undone
--     acquisition's, and a later one of the same owner (or a release) has set it to what its
--     client counts.
-- Either way the field is cleared when holds are left: no give-back applies to them any more.
local function lower(hash, owner, held, count, undo, field)
  local keep
  if undo == '' then
    keep = tonumber(count) - 1
  elseif redis.call('HGET', hash, field) == undo then
    keep = math.min(tonumber(count), held - 1)
  else
    return nil
  end
  if keep > 0 then
    redis.call('HSET', hash, owner, keep)
    redis.call('HDEL', hash, field)
  end
  return keep
end

-- Records that release `id` ended its owner's hold, for a replay of that release to find: in the
-- owner's marker key (one per owner and lock, KEYS of the release scripts), living `life` ms
-- (longer than the release may be retried). '' records nothing (a give-back).
local function mark_released(marker, id, life)
  if id ~= '' then
    redis.call('SET', marker, id, 'PX', life)
  end
end

-- Whether release `id` (not '') already ended its owner's hold: a replay after a lost reply finds
-- its own mark, while a hold lost before the release (it expired, was force-unlocked, or was lost
-- with Redis data) leaves none.
local function released_before(marker, id)
  return id ~= '' and redis.call('GET', marker) == id
end

-- The first live waiter of a queue (zset, waiter -> ticket) whose heartbeats (zset, waiter ->
-- deadline, server ms) run past `now`. Dead waiters in front of it leave both sets, and the hash
-- `entries` (waiter -> what made its entry; nil for none), at most `limit` of them (bounded work).
-- Returns the waiter (nil when the queue is empty or only dead waiters were looked at), its
-- deadline, and whether any dead waiter was dropped.
local function live_head(queue, beats, now, limit, entries)
  local dropped = false
  for _ = 1, limit do
    local first = redis.call('ZRANGE', queue, 0, 0)[1]
    if not first then
      break
    end
    local deadline = tonumber(redis.call('ZSCORE', beats, first))
    if deadline and deadline > now then
      return first, deadline, dropped
    end
    redis.call('ZREM', queue, first)
    redis.call('ZREM', beats, first)
    if entries then
      redis.call('HDEL', entries, first)
    end
    dropped = true
  end
  return nil, nil, dropped
end

-- A fair lock's queue entry record (its 'entries' hash: waiter -> record, fair-acquire.lua's
-- KEYS[6]): '<acquisition id>', or '<acquisition id> <lease ms>' for a waiter that takes a direct
-- grant (fair-acquire.lua's ARGV[10]; fair-release.lua's 'Grants'). Returns the acquisition id and
-- the lease (nil for a waiter that takes no grant: a record of a previous version is the id alone);
-- nil, nil for no record. Acquisition ids hold no space.
local function queue_entry(record)
  if not record then
    return nil, nil
  end
  local acquisition, lease = string.match(record, '^(%S+) (%d+)$')
  if acquisition then
    return acquisition, tonumber(lease)
  end
  return record, nil
end

-- Deletes a lock's hash, whoever holds it. Returns true when it existed, false when not; and,
-- second, an error reply for the script to return when the key holds another type (it is then
-- left alone).
local function force_delete(hash)
  local kind = redis.call('TYPE', hash)['ok']
  if kind == 'none' then
    return false
  end
  if kind ~= 'hash' then
    return false,
      redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
  end
  redis.call('DEL', hash)
  return true
end

-- Keeps a leased semaphore's hash and leases (zset, permit id -> lease end, server ms) for `idle`
-- ms after its last lease ends, when an idle expiry is set ('0': they never expire). Redis ignores
-- keys that do not exist.
local function keep_leased(semaphore, leases, idle)
  idle = tonumber(idle)
  if idle > 0 then
    local now = server_ms()
    local last = redis.call('ZRANGE', leases, -1, -1, 'WITHSCORES')[2]
    local ms = idle + math.max(0, (last and tonumber(last) or now) - now)
    redis.call('PEXPIRE', semaphore, ms)
    redis.call('PEXPIRE', leases, ms)
  end
end

-- end of the prelude; the script's own file follows
