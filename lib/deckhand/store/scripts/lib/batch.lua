-- Shared by the batch scripts (batch_*.lua, Store::Scripts::BatchScript):
-- their common KEYS and ARGV, the declared lineage, and the lifetimes of a
-- batch's keys. Each script is one atomic step, so when two processes finish
-- a batch's last two jobs at the same instant exactly one sees the batch done.
--
-- An operation may reach up the batch's lineage (its parent, the parent's
-- parent...) and fire callbacks to each one's callback queue, so the caller
-- declares that lineage and those queues. Both are fixed when a batch is
-- created, so a caller may reuse what it read once; if what it declares is
-- not what is stored, the script changes nothing and answers 'stale'.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1]     now, epoch ms; ARGV[2] now as job payloads write it
-- ARGV[3]     '' (plain), or the outbox age in ms (cluster, lib/batch_outbox.lua)
-- ARGV[4]     d, how many batches the lineage declares; then their d bids:
--             the batch operated on first, then its parent and so on up
-- then        q, how many queues are declared; then their q names
-- then        the operation's own arguments (batch_arg)
local batch_index, batch_expiries = KEYS[1], KEYS[2]
local batch_now = tonumber(ARGV[1])
local batch_stamp = ARGV[2]
local batch_outbox_age = tonumber(ARGV[3]) -- nil: plain mode
local batch_queues, batch_schedule, batch_outbox, batch_outbox_jobs
if batch_outbox_age then
  batch_outbox, batch_outbox_jobs = KEYS[3], KEYS[4]
else
  batch_queues, batch_schedule = KEYS[3], KEYS[4]
end
local batch_depth = tonumber(ARGV[4])
local batch_bid = ARGV[5]

-- bid => the position in KEYS of its hash; the other four follow it.
local batch_declared = {}
for i = 1, batch_depth do batch_declared[ARGV[4 + i]] = 5 + 5 * (i - 1) end
local batch_nqueues = tonumber(ARGV[5 + batch_depth])
-- name => its key (plain), or true (cluster: declared for the lineage check only)
local batch_queue_keys = {}
for i = 1, batch_nqueues do
  batch_queue_keys[ARGV[5 + batch_depth + i]] = batch_outbox_age and true or KEYS[4 + 5 * batch_depth + i]
end
-- ARGV[batch_base + 1] is the operation's first argument.
local batch_base = 5 + batch_depth + batch_nqueues

-- The operation's n-th argument.
local function batch_arg(n) return ARGV[batch_base + n] end

local BATCH_PARTS = {jids = 1, failed = 2, dead = 3, kids = 4}

-- A declared key of batch b. The checks in batch_stale keep this from ever
-- failing halfway through an operation; it fails rather than touch a key the
-- caller did not declare.
local function batch_key(b, part)
  local first = batch_declared[b]
  if not first then return error('batch: batch ' .. tostring(b) .. ' is not declared in KEYS') end
  if part then return KEYS[first + BATCH_PARTS[part]] end
  return KEYS[first]
end

local function batch_queue_key(name)
  local k = batch_queue_keys[name]
  if type(k) ~= 'string' then return error('batch: queue ' .. tostring(name) .. ' is not declared in KEYS') end
  return k
end

-- True when the declared lineage or queues differ from what is stored.
local function batch_stale()
  for i = 1, batch_depth do
    local f = redis.call('HMGET', batch_key(ARGV[4 + i]), 'parent', 'callback_queue')
    if not f[2] then return false end -- gone: nothing above it is reached
    if not batch_queue_keys[f[2]] then return true end
    if not f[1] or f[1] == '' then return false end
    if i == batch_depth or ARGV[5 + i] ~= f[1] then return true end
  end
  return false
end

local function batch_exists(b) return redis.call('EXISTS', batch_key(b)) == 1 end

-- Conservation (lib/guard.lua): an operation counts a job once and leaves,
-- so one refused halfway (a key of another type) would leave its batch
-- counted but never complete, or pushed without being counted. Every
-- declared key's type is checked before the first write.
local function batch_guard()
  for i = 1, batch_depth do
    local b = ARGV[4 + i]
    guard_all({batch_key(b), 'hash', batch_key(b, 'jids'), 'set', batch_key(b, 'failed'), 'hash',
      batch_key(b, 'dead'), 'set', batch_key(b, 'kids'), 'set'})
  end
  guard_all({batch_index, 'zset', batch_expiries, 'zset'})
  if batch_outbox_age then
    guard_all({batch_outbox, 'zset', batch_outbox_jobs, 'hash'})
  else
    guard_all({batch_queues, 'set', batch_schedule, 'zset'})
    for _, k in pairs(batch_queue_keys) do guard(k, 'list') end
  end
end

-- Sets the lifetime of every key of batch b, and of the indexes (as long as
-- their longest-lived batch), dropping index entries whose batch expired.
local function batch_touch(b, ttl)
  ttl = tonumber(ttl)
  for _, k in ipairs({batch_key(b), batch_key(b, 'jids'), batch_key(b, 'failed'), batch_key(b, 'dead'),
    batch_key(b, 'kids')}) do
    redis.call('PEXPIRE', k, ttl)
  end
  redis.call('ZADD', batch_expiries, batch_now + ttl, b)
  local gone = redis.call('ZRANGE', batch_expiries, '-inf', batch_now, 'BYSCORE', 'LIMIT', 0, 100)
  if #gone > 0 then
    redis.call('ZREM', batch_expiries, unpack(gone))
    redis.call('ZREM', batch_index, unpack(gone))
  end
  local last = redis.call('ZRANGE', batch_expiries, -1, -1, 'WITHSCORES')
  local keep = math.max(tonumber(last[2]) - batch_now, ttl)
  redis.call('PEXPIRE', batch_expiries, keep)
  redis.call('PEXPIRE', batch_index, keep)
end

local function batch_idle(b) return redis.call('HGET', batch_key(b), 'idle_ttl') end

local function batch_parent(b)
  local p = redis.call('HGET', batch_key(b), 'parent')
  if p and p ~= '' then return p end
  return false
end
