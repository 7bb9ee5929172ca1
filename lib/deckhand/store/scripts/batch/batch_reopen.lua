-- Holds an existing batch open to add jobs, until batch_release.lua.
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
-- Returns     'ok', 'gone', 'done' or 'stale' (the lineage declared is not
--             the one stored: nothing changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function reopen()
  if batch_stale() then return 'stale' end
  batch_guard()
  if not batch_exists(batch_bid) then return 'gone' end
  local h = batch_key(batch_bid)
  if redis.call('HEXISTS', h, 'success_at') == 1 then return 'done' end
  redis.call('HINCRBY', h, 'hold', 1)
  batch_touch(batch_bid, batch_idle(batch_bid))
  return 'ok'
end

return batch_answer(reopen())
