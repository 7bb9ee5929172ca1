-- Lets go of the hold taken by batch_create.lua or batch_reopen.lua; the
-- batch may complete or succeed now (lib/batch_check.lua).
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
-- then        nothing
-- Returns     'ok', 'gone' or 'stale' (the lineage declared is not the one
--             stored: nothing changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function release()
  if batch_stale() then return 'stale' end
  batch_guard()
  if not batch_exists(batch_bid) then return 'gone' end
  redis.call('HINCRBY', batch_key(batch_bid), 'hold', -1)
  batch_check(batch_bid)
  return 'ok'
end

return batch_answer(release())
