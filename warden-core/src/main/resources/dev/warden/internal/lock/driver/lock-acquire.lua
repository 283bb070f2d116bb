-- lock-acquire: takes or re-enters the reentrant lock for one owner, in one step.
-- KEYS[1]  lock hash: owner id -> hold count; '#t' -> fencing token of the current hold;
--          '#w' -> present when some acquirer waited (its release must publish);
--          '#a' -> id of the acquisition that set the owner's count last; a release or a
--          give-back that leaves holds, and cond-enqueue.lua, clear it (see prelude.lua's raise
--          and lower)
--          '#c' -> the holder's client, as its owner prefix '<client id>:';
--          '#o' -> present when an acquirer waited that the holder's client cannot hand the
--          lock to (another client's, or a multi-lock's): hand-offs then give way to a real
--          release now and then (see lock-transfer.lua)
--          '#q' -> the clients (owner prefixes, in the order they were first refused) whose
--          acquirers wait for a holder of another client: each last release nominates the first
--          of them (see lock-release.lua), so that the lock goes round the waiting clients
--          '#n' -> in a lock nobody holds: the client a last release nominated; until the hash's
--          PTTL falls to '#d' (ms) only that client's acquirers may take it; the rest of '#q'
--          stays
--          '#r' -> in a lock nobody holds: the client (owner prefix) whose last release reserved
--          it for other clients, because one of theirs waited ('#o') that no client list names
--          (a multi-lock); that client's acquirers are refused until another client takes it or
--          it expires
--          '#e' -> present when a lock-renew.lua call did not lengthen the lease under the current
--          '#t' (extend or closeAfter with a shorter lease, a renewal after a re-entry's longer
--          lease): ARGV[10] is then ignored, and a refusal reads the PTTL (see Hints)
--          '#g<owner prefix>' -> a waiting client's registered waiter, which a last release may
--          grant the lock to directly: '<lease ms> <acquisition id> <owner id>' (see ARGV[11] and
--          lock-release.lua); one per client, beside its '#q' entry, rewritten by that client's
--          refused attempts that register (the leading waiter of its line)
-- KEYS[2]  fence: what the last fencing token of this lock name was made of (prelude.lua)
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  the owner's hold count as the client knows it before this call ('known'): when the
--          owner holds the lock, its count becomes known + 1 (see prelude.lua's raise), whatever
--          Redis counted; a hold the client does not know of (known 0, '#a' names another
--          acquisition) is taken over with count 1 and a new token
-- ARGV[4]  '1' when other acquirers of the same client wait, so the release must publish
-- ARGV[5]  fence terms: "<retention ms>:<epoch>" (see prelude.lua's mint_token)
-- ARGV[6]  this acquisition's id, recorded in '#a': a retry of it (its first reply lost) finds
--          its own id there and keeps the count (a first acquisition's retry gets a new token, as
--          its client never saw the first: see prelude.lua's raise); a give-back names it (see
--          lock-release.lua)
-- ARGV[7]  the owner's client, as its owner prefix '<client id>:'
-- ARGV[8]  '1' when the owner waits if refused (then a refusal by another client's holder marks
--          '#o' and lists the owner's client in '#q'), '0' when it does not
-- ARGV[9]  '1' when this acquisition was refused before (a re-check, a woken waiter's retry):
--          the hash is then likely there, and the EXISTS is skipped (see Cost); '0' when not
-- ARGV[10] a hint, '' for none: the token ('#t') of the holder whose refusal the client heard
--          last, while the expiry the client computed from that refusal's PTTL (counted from when
--          it sent that call, so no later than the hash's) is not reached. A refusal by a holder
--          of another owner under that same token then does not read PTTL: {0, -2} says "the
--          expiry you know stands" (see Hints)
-- ARGV[11] '1' when the owner, refused by a holder of another client while it waits, registers
--          as its client's waiter for a direct grant ('#g<owner prefix>'): only a first
--          acquisition (known 0) of a client that takes grant messages sends it (absent or '0':
--          it does not register; any registration of its client stays)
-- Returns  {1, token, holdCount} when the owner holds the lock afterwards (holdCount: known + 1
--          where the owner held it, or what the first run of this acquisition set; 1, with a new
--          token, when the lock was free, whatever known: a client that knew a hold then sees
--          that it was lost);
--          {0, pttl, token} when another owner holds it (pttl: its remaining lease in ms, -1 if
--          none; token: the holder's '#t', absent when it has none), {0, -2} when that holder's
--          '#t' is the one ARGV[10] names (its PTTL not read), and {0, pttl} when it is another
--          client's turn or the lock is reserved (pttl: the ms until the turn ends, or the hash's).
-- Cost     a lock without a hash (free, and kept for nobody: what a single thread finds after its
--          own last release, which deleted it) is taken after an EXISTS instead of the HMGET of
--          twelve fields, which would all be nil: the same outcome, for about 0.5 us less Redis time
--          (docs/performance.md, 'One thread'); any other lock costs the EXISTS more. A re-entry
--          passes on the '#a' and '#t' its HMGET read, rather than reading them again. An
--          attempt after a refusal (ARGV[9]) skips the EXISTS: on a missing hash the HMGET reads
--          every field nil, and the lock is taken below exactly as after the EXISTS (take, with
--          ARGV[4] alone deciding '#w', no queue); so a re-check of a held lock is the HMGET and
--          the PTTL, and with the hint (ARGV[10]) the HMGET alone.
-- Hints    ARGV[9] and ARGV[10] decide only which commands run, never what is written or who
--          holds the lock: the HMGET is read either way, every branch tests the same fields, and
--          the PTTL a refusal returns only times the client's next check. So a wrong hint (stale,
--          or made up) can only make that check later. '#t' is never the same for two holds
--          (tokens rise), so a new holder's PTTL is always read. Under one '#t' the hash's expiry
--          only moves later (re-entries never shorten it, a renewal sets a full lease), or the
--          hash carries '#e' and the hint is ignored: lock-renew.lua marks it whenever it does not
--          lengthen the lease (LockHandle.extend or closeAfter with a shorter lease, a renewal
--          shorter than what a re-entry with an explicit lease set, the last renewal before
--          maxHoldTime landing a few ms earlier than the one before). The exceptions left: a
--          restart from an older file, or a failover to a replica that missed the holder's last
--          renewals, brings the hold back with an earlier expiry (after a Sentinel failover the
--          client sends no ARGV[10] learnt before it: RefusalHint.sentUnder; not on one server,
--          nor on a cluster, whose fence terms name no epoch): then the client checks at the
--          expiry it knows or at its line's interval (at most 1 s, or the recheck interval if
--          longer), whichever comes first, as it did before for a lost wake-up. A holder whose lease runs out is found either way: its hash is gone, and the
--          next check (due at the expiry the client knows, no later than the real one but in
--          those cases) takes the lock after the HMGET alone.
local lock, fence = KEYS[1], KEYS[2]
local owner, lease, client = ARGV[1], tonumber(ARGV[2]), ARGV[7]

-- Takes the free lock for the owner with a new token; `waited`: somebody waits, so its release
-- must publish; `queue`: the waiting clients to keep ('#q'), or nil.
local function take(waited, queue)
  local token = mint_token(fence, ARGV[5])
  if queue then
    grant(lock, owner, token, ARGV[6], '#c', client, '#w', 1, '#o', 1, '#q', queue)
  elseif waited then
    grant(lock, owner, token, ARGV[6], '#c', client, '#w', 1)
  else
    grant(lock, owner, token, ARGV[6], '#c', client)
  end
  redis.call('PEXPIRE', lock, lease)
  return {1, token, 1}
end

-- Where `entry` starts among the owner prefixes `queue` lists (each ends with ':'), or nil.
local function listed(queue, entry)
  local at = string.find(queue, entry, 1, true)
  while at do
    if at == 1 or string.sub(queue, at - 1, at - 1) == ':' then
      return at
    end
    at = string.find(queue, entry, at + 1, true)
  end
  return nil
end

-- no hash: free and kept for nobody (every field below would be nil), taken at once (see Cost);
-- an attempt after a refusal goes straight to the HMGET
if ARGV[9] ~= '1' and redis.call('EXISTS', lock) == 0 then
  return take(ARGV[4] == '1', nil)
end

local state = redis.call('HMGET', lock, owner, '#c', '#r', '#w', '#n', '#q', '#d', '#t', '#o', '#a',
  '#e', '#g' .. client)

-- (direct grant) Registers the owner as its client's waiter for a direct grant (ARGV[11]),
-- writing only when the registration (read by the HMGET above) changes: the lease, this
-- acquisition's id and the owner.
local function register()
  local entry = ARGV[2] .. ' ' .. ARGV[6] .. ' ' .. owner
  if state[12] ~= entry then
    redis.call('HSET', lock, '#g' .. client, entry)
  end
end

-- Refuses the owner: marks that somebody waits, and, when it will wait, lists its client among
-- the waiting ones ('#q'); `other`: the lock is held by (or nominated for) another client;
-- `retry`: when to ask again, in ms (the lock's PTTL if nil); `holder`: the holder's token, returned
-- with the PTTL (see ARGV[10]). Writes nothing that is there.
local function refuse(other, retry, holder)
  local queue = state[6] or ''
  if ARGV[8] == '1' and other then
    if not listed(queue, client) then
      redis.call('HSET', lock, '#w', 1, '#o', 1, '#q', queue .. client)
    elseif not state[5] and not (state[4] and state[9]) then
      redis.call('HSET', lock, '#w', 1, '#o', 1) -- (a nominated lock's taker writes them)
    end
    if ARGV[11] == '1' and ARGV[3] == '0' then
      register()
    end
  elseif not state[4] then
    redis.call('HSET', lock, '#w', 1)
  end
  if retry then
    return {0, retry}
  end
  return {0, redis.call('PTTL', lock), holder}
end

if not (state[1] or state[3] or state[5] or state[8]) then
  return take(ARGV[4] == '1', nil) -- nobody holds it, nor is it kept for anybody
end
if state[5] then
  -- nominated by the last release: the nominee's, or anybody's once its turn ran out (the hash
  -- lives on after the turn, which ends when its PTTL falls to '#d')
  local pttl = nil
  if state[5] ~= client then
    pttl = redis.call('PTTL', lock)
  end
  if not pttl or pttl <= tonumber(state[7]) then
    local queue = state[6]
    local at = queue and listed(queue, client)
    if at then -- its turn comes now
      queue = string.sub(queue, 1, at - 1) .. string.sub(queue, at + #client)
    end
    redis.call('DEL', lock)
    return take(state[4] or ARGV[4] == '1', queue ~= '' and queue or nil)
  end
  -- asks again when the turn ends, should the nominee not come (a lost message, a waiter gone)
  return refuse(true, pttl - tonumber(state[7]))
end
if state[3] then
  if state[3] == client then
    redis.call('HSET', lock, '#w', 1) -- whoever takes it publishes its release
    return {0, redis.call('PTTL', lock)}
  end
  redis.call('DEL', lock)
  return take(state[4] or ARGV[4] == '1', nil)
end
local held = state[1]
if not held then
  -- a holder of another client (or of a multi-lock, which records none) cannot hand the lock
  -- to this waiter
  if state[8] and state[8] == ARGV[10] and not state[11] then
    return refuse(state[2] ~= client, -2) -- the expiry the client knows stands (see Hints)
  end
  return refuse(state[2] ~= client, nil, state[8])
end

-- a re-entry, a replay, or a hold the client does not know of (see prelude.lua's raise); '#a' and
-- '#t' as read above (see Cost)
local count, token =
  reenter_fenced(lock, fence, ARGV[5], owner, held, ARGV[3], ARGV[6], lease, state[10], state[8])
if ARGV[4] == '1' and not state[4] then
  redis.call('HSET', lock, '#w', 1)
end
return {1, token, count}
