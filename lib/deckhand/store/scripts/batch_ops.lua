-- Batch bookkeeping (Deckhand::Batch). Each call is atomic, so when two
-- processes finish a batch's last two jobs at the same instant exactly one of
-- them sees the batch done and fires its callbacks. Counting is per jid (a
-- set), so a job that runs twice (at-least-once delivery) is counted once.
--
-- Every key it touches is declared in KEYS (Store::Scripts::BatchOps builds
-- them). An operation may reach up the batch's lineage (its parent, the
-- parent's parent...) and fire callbacks to each one's callback queue, so the
-- caller declares that lineage and those queues. Both are fixed when a batch
-- is created, so a caller may reuse what it read once; if what it declares is
-- not what is stored, the script changes nothing and answers 'stale'.
--
-- Two modes, one source:
-- * plain Redis (ARGV[4] ''): callback jobs and the batch's jobs are pushed
--   to their queues here, in the step that fires them: each callback is
--   pushed exactly once.
-- * Redis Cluster (ARGV[4] the outbox age, ms): every key here shares the
--   hash tag {batches}; queues are in other slots, so nothing is pushed
--   here. A fired callback (its jid fixed when the batch was created) is
--   recorded in the outbox in the step that fires it and listed in the
--   reply; the caller pushes it with batch_callbacks.lua, in the queue's
--   slot, which pushes a jid only if the queue does not remember it, then
--   calls 'delivered' to clear it. Outbox entries older than the outbox age
--   (their caller died or lost Redis in between) are listed to whoever calls
--   next, and pushed by them: any batch call, and every running server's
--   outbox drain (Server::BatchOutboxDrain, a 'pending' call every 30 s).
--   GUARANTEE: a fired callback is never lost (it stays in the outbox until
--   it is in its queue), and each fires once, as in plain mode: pushed to
--   its queue once. The one exception needs a process to die between pushing
--   a callback and clearing it AND no batch call and no running server
--   anywhere for 30 days after (Scripts::BatchCallbacks::REMEMBER_MS), or a
--   caller to stall for 10 minutes between taking an entry and pushing it
--   (::GRACE_MS); then it may be pushed twice. A crash delays a callback
--   by at most the outbox age plus a drain's interval (66 s) while any
--   server runs (a server also pushes leftovers when it boots).
--   The batch's jobs are pushed by the caller after 'push' registered their
--   jids, while the batch is held: a failure leaves the hold, as in plain.
--   Replies are {reply, n, jid, queue, payload, ...}: n entries left by
--   others first, then this call's own.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1]     now, epoch ms; ARGV[2] now as job payloads write it
-- ARGV[3]     operation
-- ARGV[4]     '' (plain), or the outbox age in ms (cluster)
-- ARGV[5]     d, how many batches the lineage declares; then their d bids:
--             the batch operated on first, then its parent and so on up
-- then        q, how many queues are declared; then their q names
-- then        the operation's own arguments:
--   create    parent bid or '', idle ttl ms, success ttl ms, callback queue,
--             description, on_complete, on_success, on_death (JSON arrays of
--             [jid, payload without its closing brace], or ''). Its lineage:
--             the new batch, then its parent if any
--   reopen    (none): hold an existing batch open to add jobs
--   push      n, n jids, queue count, per queue (name, count, payloads...),
--             scheduled count, (score, payload)... (cluster: no jobs, the
--             caller pushes them once the jids are registered)
--   release   (none): let go of the hold taken by create or reopen
--   success   jid
--   failure   jid, JSON of the error
--   death     jid, JSON of the error
--   delivered (cluster, d = 0) jids whose callback jobs are in their queues
--   pending   (cluster, d = 0) jids or nothing: lists the outbox's old
--             entries, and those of the jids it still holds
--
-- A batch is complete when no hold remains, every pending job has failed at
-- least once and every child batch is complete; it has succeeded when no job
-- is pending and every child batch has succeeded. Callbacks of a child batch
-- are jobs of its parent, so a parent succeeds only after them.
local index, expiries = KEYS[1], KEYS[2]
local now = tonumber(ARGV[1])
local stamp = ARGV[2]
local op = ARGV[3]
local outbox_age = tonumber(ARGV[4]) -- nil: plain mode
local queues, schedule, outbox, outbox_jobs
if outbox_age then outbox, outbox_jobs = KEYS[3], KEYS[4] else queues, schedule = KEYS[3], KEYS[4] end
local depth = tonumber(ARGV[5])
local bid = ARGV[6]

-- bid => the position in KEYS of its hash; the other four follow it.
local declared = {}
for i = 1, depth do declared[ARGV[5 + i]] = 5 + 5 * (i - 1) end
local nqueues = tonumber(ARGV[6 + depth])
-- name => its key (plain), or true (cluster: declared for the lineage check only)
local queue_keys = {}
for i = 1, nqueues do queue_keys[ARGV[6 + depth + i]] = outbox_age and true or KEYS[4 + 5 * depth + i] end
local base = 6 + depth + nqueues

-- The operation's n-th argument.
local function arg(n) return ARGV[base + n] end

local PARTS = {jids = 1, failed = 2, dead = 3, kids = 4}

-- A declared key of batch b. The checks in 'stale' keep this from ever
-- failing halfway through an operation; it fails rather than touch a key the
-- caller did not declare.
local function key(b, part)
  local first = declared[b]
  if not first then return error('batch_ops: batch ' .. tostring(b) .. ' is not declared in KEYS') end
  if part then return KEYS[first + PARTS[part]] end
  return KEYS[first]
end

local function queue_key(name)
  local k = queue_keys[name]
  if type(k) ~= 'string' then return error('batch_ops: queue ' .. tostring(name) .. ' is not declared in KEYS') end
  return k
end

-- True when the declared lineage or queues differ from what is stored.
local function stale()
  for i = 1, depth do
    local f = redis.call('HMGET', key(ARGV[5 + i]), 'parent', 'callback_queue')
    if not f[2] then return false end -- gone: nothing above it is reached
    if not queue_keys[f[2]] then return true end
    if not f[1] or f[1] == '' then return false end
    if i == depth or ARGV[6 + i] ~= f[1] then return true end
  end
  return false
end

local function exists(b) return redis.call('EXISTS', key(b)) == 1 end

-- Conservation (lib/guard.lua): an operation counts a job once and leaves,
-- so one refused halfway (a key of another type) would leave its batch
-- counted but never complete, or pushed without being counted. Every
-- declared key's type is checked before the first write.
local function guard_declared()
  for i = 1, depth do
    local b = ARGV[5 + i]
    guard_all({key(b), 'hash', key(b, 'jids'), 'set', key(b, 'failed'), 'hash', key(b, 'dead'), 'set',
      key(b, 'kids'), 'set'})
  end
  guard_all({index, 'zset', expiries, 'zset'})
  if outbox_age then
    guard_all({outbox, 'zset', outbox_jobs, 'hash'})
  else
    guard_all({queues, 'set', schedule, 'zset'})
    for _, k in pairs(queue_keys) do guard(k, 'list') end
  end
end

-- Sets the lifetime of every key of batch b, and of the indexes (as long as
-- their longest-lived batch), dropping index entries whose batch expired.
local function touch(b, ttl)
  ttl = tonumber(ttl)
  for _, k in ipairs({key(b), key(b, 'jids'), key(b, 'failed'), key(b, 'dead'), key(b, 'kids')}) do
    redis.call('PEXPIRE', k, ttl)
  end
  redis.call('ZADD', expiries, now + ttl, b)
  local gone = redis.call('ZRANGE', expiries, '-inf', now, 'BYSCORE', 'LIMIT', 0, 100)
  if #gone > 0 then
    redis.call('ZREM', expiries, unpack(gone))
    redis.call('ZREM', index, unpack(gone))
  end
  local last = redis.call('ZRANGE', expiries, -1, -1, 'WITHSCORES')
  local keep = math.max(tonumber(last[2]) - now, ttl)
  redis.call('PEXPIRE', expiries, keep)
  redis.call('PEXPIRE', index, keep)
end

local function idle(b) return redis.call('HGET', key(b), 'idle_ttl') end

local function parent_of(b)
  local p = redis.call('HGET', key(b), 'parent')
  if p and p ~= '' then return p end
  return false
end

-- Cluster mode: the callbacks this call fired, in order, {jid, queue,
-- payload, ...}, for the reply; each is in the outbox until 'delivered'.
local fired = {}

local function record(jid, queue, payload)
  local n = #fired / 3 + 1
  -- Epoch microseconds, the firing order within the call in the last three
  -- digits (a score stays an exact integer in a double).
  redis.call('ZADD', outbox, ARGV[1] .. string.format('%03d', math.min(n, 999)), jid)
  redis.call('HSET', outbox_jobs, jid, cjson.encode({queue, payload}))
  fired[#fired + 1] = jid
  fired[#fired + 1] = queue
  fired[#fired + 1] = payload
end

-- Cluster mode: how many entries of the outbox are older than the outbox age
-- (their caller never said 'delivered'), then those entries, oldest first
-- (100 at most: BatchOps::OUTBOX_TAKE), then this call's own: {count, jid,
-- queue, payload, ...}.
local function to_deliver()
  local old = {0}
  local before = string.format('%d', now - outbox_age) .. '999'
  local jids = redis.call('ZRANGE', outbox, '-inf', before, 'BYSCORE', 'LIMIT', 0, 100)
  if #jids > 0 then
    local entries = redis.call('HMGET', outbox_jobs, unpack(jids))
    for i, jid in ipairs(jids) do
      if entries[i] then
        local entry = cjson.decode(entries[i])
        old[#old + 1] = jid
        old[#old + 1] = entry[1]
        old[#old + 1] = entry[2]
      else
        redis.call('ZREM', outbox, jid)
      end
    end
  end
  old[1] = (#old - 1) / 3
  for _, v in ipairs(fired) do old[#old + 1] = v end
  return old
end

-- Fires the callback jobs of one event; with a parent, they join it.
local function fire(b, event, parent)
  local list = redis.call('HGET', key(b), 'on_' .. event)
  if not list then return end
  local entries = cjson.decode(list)
  if #entries == 0 then return end
  local tail = ',"created_at":' .. stamp .. ',"enqueued_at":' .. stamp
  if parent then tail = tail .. ',"bid":' .. cjson.encode(parent) end
  tail = tail .. '}'
  local jids, payloads = {}, {}
  for i, entry in ipairs(entries) do
    jids[i] = entry[1]
    payloads[i] = entry[2] .. tail
  end
  if parent and exists(parent) then
    redis.call('SADD', key(parent, 'jids'), unpack(jids))
    redis.call('HINCRBY', key(parent), 'total', #jids)
    touch(parent, idle(parent))
  end
  local queue = redis.call('HGET', key(b), 'callback_queue')
  if outbox_age then
    for i, jid in ipairs(jids) do record(jid, queue, payloads[i]) end
  else
    redis.call('SADD', queues, queue)
    redis.call('LPUSH', queue_key(queue), unpack(payloads))
  end
end

local check

local function child_settled(parent, field)
  if not exists(parent) then return end
  redis.call('HINCRBY', key(parent), field, -1)
  check(parent)
end

check = function(b)
  local h = key(b)
  local f = redis.call('HMGET', h, 'hold', 'kids_pending', 'kids_incomplete', 'complete_at', 'success_at', 'idle_ttl', 'success_ttl')
  if not f[6] or tonumber(f[1]) > 0 then return end
  local pending = redis.call('SCARD', key(b, 'jids'))
  local parent = parent_of(b)
  local completed = false
  if not f[4] and tonumber(f[3]) <= 0 and pending == redis.call('HLEN', key(b, 'failed')) then
    redis.call('HSET', h, 'complete_at', now)
    completed = true
    fire(b, 'complete', parent)
    if parent then child_settled(parent, 'kids_incomplete') end
  end
  if not f[5] and pending == 0 and tonumber(f[2]) <= 0 then
    redis.call('HSET', h, 'success_at', now)
    fire(b, 'success', parent)
    touch(b, f[7])
    if parent then child_settled(parent, 'kids_pending') end
  elseif completed then
    touch(b, f[6])
  end
end

-- Runs a batch operation; its reply.
local function operate()
  if op ~= 'create' and stale() then return 'stale' end
  if op ~= 'success' then guard_declared() end

  local h = key(bid)
  local jids = key(bid, 'jids')

  if op == 'create' then
    if exists(bid) then return 'exists' end
    local parent = arg(1)
    if parent ~= '' then
      if not exists(parent) then return 'parent_gone' end
      if redis.call('HEXISTS', key(parent), 'success_at') == 1 then return 'parent_done' end
    end
    redis.call('HSET', h, 'created_at', now, 'total', 0, 'hold', 1, 'kids_pending', 0, 'kids_incomplete', 0,
      'idle_ttl', arg(2), 'success_ttl', arg(3), 'callback_queue', arg(4))
    local optional = {parent = arg(1), description = arg(5), on_complete = arg(6), on_success = arg(7), on_death = arg(8)}
    for field, value in pairs(optional) do
      if value ~= '' then redis.call('HSET', h, field, value) end
    end
    redis.call('ZADD', index, now, bid)
    touch(bid, arg(2))
    if parent ~= '' then
      redis.call('HINCRBY', key(parent), 'kids_pending', 1)
      redis.call('HINCRBY', key(parent), 'kids_incomplete', 1)
      redis.call('SADD', key(parent, 'kids'), bid)
      touch(parent, idle(parent))
    end
    return 'ok'
  elseif op == 'reopen' then
    if not exists(bid) then return 'gone' end
    if redis.call('HEXISTS', h, 'success_at') == 1 then return 'done' end
    redis.call('HINCRBY', h, 'hold', 1)
    touch(bid, idle(bid))
    return 'ok'
  elseif op == 'push' then
    if not exists(bid) then return 'gone' end
    local i = base + 1
    local n = tonumber(ARGV[i])
    redis.call('SADD', jids, unpack(ARGV, i + 1, i + n))
    redis.call('HINCRBY', h, 'total', n)
    i = i + n + 1
    for _ = 1, tonumber(ARGV[i]) do
      local name, count = ARGV[i + 1], tonumber(ARGV[i + 2])
      redis.call('SADD', queues, name)
      redis.call('LPUSH', queue_key(name), unpack(ARGV, i + 3, i + 2 + count))
      i = i + 2 + count
    end
    local scheduled = tonumber(ARGV[i + 1])
    if scheduled > 0 then redis.call('ZADD', schedule, unpack(ARGV, i + 2, i + 1 + 2 * scheduled)) end
    touch(bid, idle(bid))
    return 'ok'
  elseif op == 'release' then
    if not exists(bid) then return 'gone' end
    redis.call('HINCRBY', h, 'hold', -1)
    check(bid)
    return 'ok'
  elseif op == 'success' then
    -- The common case, run once per job: four cheap calls after the lineage
    -- check (one HMGET per level), and the full check only when the batch may
    -- have just completed or succeeded.
    -- Reads first: whether the full check follows, which then has every
    -- declared key checked before this writes anything (guard_declared).
    local jid, failed = arg(1), key(bid, 'failed')
    if redis.call('SISMEMBER', jids, jid) == 0 then return 0 end
    local had_failed = redis.call('HEXISTS', failed, jid) == 1
    local pending = redis.call('SCARD', jids) - 1
    local full = pending == 0 or pending == redis.call('HLEN', failed) - (had_failed and 1 or 0)
    if full then guard_declared() elseif had_failed then guard(key(bid, 'dead'), 'set') end
    redis.call('SREM', jids, jid)
    if had_failed then
      redis.call('HDEL', failed, jid)
      redis.call('SREM', key(bid, 'dead'), jid)
    end
    if full then check(bid) end
    return 1
  elseif op == 'failure' then
    if redis.call('SISMEMBER', jids, arg(1)) == 0 then return 0 end
    if redis.call('HSET', key(bid, 'failed'), arg(1), arg(2)) == 0 then return 0 end
    touch(bid, idle(bid))
    check(bid)
    return 1
  elseif op == 'death' then
    if redis.call('SISMEMBER', jids, arg(1)) == 0 then return 0 end
    redis.call('HSET', key(bid, 'failed'), arg(1), arg(2))
    redis.call('SADD', key(bid, 'dead'), arg(1))
    touch(bid, idle(bid))
    -- The first death in a batch fires its :death callbacks, and its parent's.
    local b = bid
    while b and exists(b) and redis.call('HSETNX', key(b), 'death_at', now) == 1 do
      local parent = parent_of(b)
      fire(b, 'death', parent)
      b = parent
    end
    check(bid)
    return 1
  end
  return redis.error_reply('batch_ops: unknown operation ' .. tostring(op))
end

local reply
if op == 'delivered' then
  local first = base + 1
  if outbox_age and #ARGV >= first then
    guard_all({outbox, 'zset', outbox_jobs, 'hash'})
    redis.call('ZREM', outbox, unpack(ARGV, first))
    redis.call('HDEL', outbox_jobs, unpack(ARGV, first))
  end
  reply = 'ok'
elseif op == 'pending' then
  -- With jids: those of them the outbox still holds, as this call's own.
  local first = base + 1
  if outbox_age and #ARGV >= first then
    local entries = redis.call('HMGET', outbox_jobs, unpack(ARGV, first))
    for i, entry in ipairs(entries) do
      if entry then
        local e = cjson.decode(entry)
        fired[#fired + 1] = ARGV[first + i - 1]
        fired[#fired + 1] = e[1]
        fired[#fired + 1] = e[2]
      end
    end
  end
  reply = 'ok'
else
  reply = operate()
end
if not outbox_age or type(reply) == 'table' then return reply end
local answer = to_deliver()
table.insert(answer, 1, reply)
return answer
