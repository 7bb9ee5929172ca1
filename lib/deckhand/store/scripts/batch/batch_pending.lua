-- Cluster mode: lists the outbox's entries older than the outbox age (left
-- by a caller that died or lost Redis before pushing them), and with jids
-- those of them the outbox still holds, as this call's own. Changes nothing
-- but entries whose job is gone. In plain mode there is no outbox.
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
-- then        jids, or nothing
-- Returns     'ok'
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local first = batch_base + 1
if batch_outbox_age and #ARGV >= first then
  local entries = redis.call('HMGET', batch_outbox_jobs, unpack(ARGV, first))
  for i, entry in ipairs(entries) do
    if entry then
      local e = cjson.decode(entry)
      batch_fired[#batch_fired + 1] = ARGV[first + i - 1]
      batch_fired[#batch_fired + 1] = e[1]
      batch_fired[#batch_fired + 1] = e[2]
    end
  end
end
return batch_answer('ok')
