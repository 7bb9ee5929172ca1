-- Counts a job of the batch as dead, once however often it is told (a job
-- recovered after a crash tells it again). The first death fires the death
-- callbacks up the lineage; the batch may complete (lib/batch_check.lua).
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
-- Returns     1 (counted), 0 (counted before, or not the batch's job) or
--             'stale' (the lineage declared is not the one stored: nothing changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function dead()
  if batch_stale() then return 'stale' end
  batch_guard()
  local jid = batch_arg(1)
  if redis.call('SISMEMBER', batch_key(batch_bid, 'jids'), jid) == 0 then return 0 end
  if redis.call('SADD', batch_key(batch_bid, 'dead'), jid) == 0 then return 0 end
  redis.call('HSET', batch_key(batch_bid, 'failed'), jid, batch_arg(2))
  batch_touch(batch_bid, batch_idle(batch_bid))
  local b = batch_bid
  while b and batch_exists(b) and redis.call('HSETNX', batch_key(b), 'death_at', batch_now) == 1 do
    local parent = batch_parent(b)
    batch_fire(b, 'death', parent)
    b = parent
  end
  batch_check(batch_bid)
  return 1
end

return batch_answer(dead())
