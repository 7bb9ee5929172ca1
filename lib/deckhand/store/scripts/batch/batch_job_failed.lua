-- Counts a job of the batch as failed (it will be retried); the batch may
-- complete now (lib/batch_check.lua). A job is counted once however often
-- it fails, until it succeeds.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
-- then        jid, JSON of the error
-- Returns     1 (counted now), 0 (counted before, or not the batch's job) or
--             'stale' (the lineage declared is not the one stored: nothing
--             changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function failed()
  if batch_stale() then return 'stale' end
  batch_guard()
  local jid = batch_arg(1)
  if redis.call('SISMEMBER', batch_key(batch_bid, 'jids'), jid) == 0 then return 0 end
  if redis.call('HSET', batch_key(batch_bid, 'failed'), jid, batch_arg(2)) == 0 then return 0 end
  batch_touch(batch_bid, batch_idle(batch_bid))
  batch_check(batch_bid)
  return 1
end

return batch_answer(failed())
