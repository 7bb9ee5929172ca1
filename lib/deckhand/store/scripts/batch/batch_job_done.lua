-- Counts a job of the batch as done (it succeeded); the batch may complete
-- or succeed now (lib/batch_check.lua). Counting is per jid (a set), so a
-- job that runs twice (at-least-once delivery) is counted once.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
-- then        jid
-- Returns     1 (counted now), 0 (counted before, or not the batch's job) or
--             'stale' (the lineage declared is not the one stored: nothing
--             changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function done()
  if batch_stale() then return 'stale' end
  -- The common case, run once per job: four cheap calls after the lineage
  -- check (one HMGET per level), and the full check only when the batch may
  -- have just completed or succeeded.
  -- Reads first: whether the full check follows, which then has every
  -- declared key checked before this writes anything (batch_guard).
  local jids, failed, jid = batch_key(batch_bid, 'jids'), batch_key(batch_bid, 'failed'), batch_arg(1)
  if redis.call('SISMEMBER', jids, jid) == 0 then return 0 end
  local had_failed = redis.call('HEXISTS', failed, jid) == 1
  local pending = redis.call('SCARD', jids) - 1
  local full = pending == 0 or pending == redis.call('HLEN', failed) - (had_failed and 1 or 0)
  if full then batch_guard() elseif had_failed then guard(batch_key(batch_bid, 'dead'), 'set') end
  redis.call('SREM', jids, jid)
  if had_failed then
    redis.call('HDEL', failed, jid)
    redis.call('SREM', batch_key(batch_bid, 'dead'), jid)
  end
  if full then batch_check(batch_bid) end
  return 1
end

return batch_answer(done())
