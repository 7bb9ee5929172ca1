-- Cluster mode: clears from the outbox the callbacks now in their queues
-- (batch_callbacks.lua pushed them). In plain mode there is no outbox: it
-- changes nothing.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
--             (d = 0, q = 0: no lineage)
-- then        the jids whose callback jobs are in their queues
-- Returns     'ok'
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local first = batch_base + 1
if batch_outbox_age and #ARGV >= first then
  guard_all({batch_outbox, 'zset', batch_outbox_jobs, 'hash'})
  redis.call('ZREM', batch_outbox, unpack(ARGV, first))
  redis.call('HDEL', batch_outbox_jobs, unpack(ARGV, first))
end
return batch_answer('ok')
