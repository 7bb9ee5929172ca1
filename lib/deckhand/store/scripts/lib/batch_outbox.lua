-- Shared by the batch scripts, after lib/batch.lua: what they answer, and in
-- cluster mode the outbox. Two modes, one source:
-- * plain Redis (ARGV[3] ''): callback jobs and the batch's jobs are pushed
--   to their queues by the script, in the step that fires them: each
--   callback is pushed exactly once. A script answers its own reply.
-- * Redis Cluster (ARGV[3] the outbox age, ms): every key a batch script
--   touches shares the hash tag {batches}; queues are in other slots, so
--   nothing is pushed there. A fired callback (its jid fixed when the batch
--   was created) is recorded in the outbox in the step that fires it and
--   listed in the reply; the caller pushes it with batch_callbacks.lua, in
--   the queue's slot, which pushes a jid only if the queue does not remember
--   it, then runs batch_delivered.lua to clear it. Outbox entries older than
--   the outbox age (their caller died or lost Redis in between) are listed
--   to whoever calls next, and pushed by them: any batch call, and every
--   running server's outbox drain (Server::BatchOutboxDrain, a
--   batch_pending.lua call every 30 s).
--   GUARANTEE: a fired callback is never lost (it stays in the outbox until
--   it is in its queue), and each fires once, as in plain mode: pushed to
--   its queue once. The one exception needs a process to die between pushing
--   a callback and clearing it AND no batch call and no running server
--   anywhere for 30 days after (Scripts::BatchCallbacks::REMEMBER_MS), or a
--   caller to stall for 10 minutes between taking an entry and pushing it
--   (::GRACE_MS); then it may be pushed twice. A crash delays a callback
--   by at most the outbox age plus a drain's interval (66 s) while any
--   server runs (a server also pushes leftovers when it boots).
--   The batch's jobs are pushed by the caller after batch_add.lua registered
--   their jids, while the batch is held: a failure leaves the hold, as in
--   plain mode. Replies are {reply, n, jid, queue, payload, ...}: n entries
--   left by others first, then this call's own.

-- Cluster mode: the callbacks this call fired, in order, {jid, queue,
-- payload, ...}, for the reply; each is in the outbox until delivered.
local batch_fired = {}

local function batch_record(jid, queue, payload)
  local n = #batch_fired / 3 + 1
  -- Epoch microseconds, the firing order within the call in the last three
  -- digits (a score stays an exact integer in a double).
  redis.call('ZADD', batch_outbox, ARGV[1] .. string.format('%03d', math.min(n, 999)), jid)
  redis.call('HSET', batch_outbox_jobs, jid, cjson.encode({queue, payload}))
  batch_fired[#batch_fired + 1] = jid
  batch_fired[#batch_fired + 1] = queue
  batch_fired[#batch_fired + 1] = payload
end

-- Cluster mode: how many entries of the outbox are older than the outbox age
-- (their caller never cleared them), then those entries, oldest first (100
-- at most: BatchOps::OUTBOX_TAKE), then this call's own: {count, jid, queue,
-- payload, ...}.
local function batch_to_deliver()
  local old = {0}
  local before = string.format('%d', batch_now - batch_outbox_age) .. '999'
  local jids = redis.call('ZRANGE', batch_outbox, '-inf', before, 'BYSCORE', 'LIMIT', 0, 100)
  if #jids > 0 then
    local entries = redis.call('HMGET', batch_outbox_jobs, unpack(jids))
    for i, jid in ipairs(jids) do
      if entries[i] then
        local entry = cjson.decode(entries[i])
        old[#old + 1] = jid
        old[#old + 1] = entry[1]
        old[#old + 1] = entry[2]
      else
        redis.call('ZREM', batch_outbox, jid)
      end
    end
  end
  old[1] = (#old - 1) / 3
  for _, v in ipairs(batch_fired) do old[#old + 1] = v end
  return old
end

-- What a batch script returns for the operation's reply: the reply itself
-- in plain mode, in cluster mode {reply, n, jid, queue, payload, ...}.
local function batch_answer(reply)
  if not batch_outbox_age or type(reply) == 'table' then return reply end
  local answer = batch_to_deliver()
  table.insert(answer, 1, reply)
  return answer
end
