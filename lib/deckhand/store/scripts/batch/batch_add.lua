-- Adds jobs to a held batch: registers their jids and, in plain mode, pushes
-- them in the same step (cluster: the caller pushes them once the jids are
-- registered, the batch still held). The call's mark (Store::PushMarks) says,
-- after its reply was lost, whether it ran: a call that finds its mark
-- written (it ran, or the question was asked) changes nothing. A jid
-- registered before counts once (a job given back by an incomplete push
-- and pushed again).
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- KEYS[#KEYS] the call's mark
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
-- then        n, n jids, queue count, per queue (name, count, payloads...),
--             scheduled count, (score, payload)... (cluster: no jobs), and
--             the seconds the mark lives
-- Returns     'ok', 'seen' (the mark was there: nothing changed), 'gone' or
--             'stale' (the lineage declared is not the one stored: nothing
--             changed)
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function add()
  local mark = KEYS[#KEYS]
  if redis.call('EXISTS', mark) == 1 then return 'seen' end
  if batch_stale() then return 'stale' end
  batch_guard()
  if not batch_exists(batch_bid) then return 'gone' end
  local i = batch_base + 1
  local n = tonumber(ARGV[i])
  local added = redis.call('SADD', batch_key(batch_bid, 'jids'), unpack(ARGV, i + 1, i + n))
  redis.call('HINCRBY', batch_key(batch_bid), 'total', added)
  i = i + n + 1
  for _ = 1, tonumber(ARGV[i]) do
    local name, count = ARGV[i + 1], tonumber(ARGV[i + 2])
    redis.call('SADD', batch_queues, name)
    redis.call('LPUSH', batch_queue_key(name), unpack(ARGV, i + 3, i + 2 + count))
    i = i + 2 + count
  end
  local scheduled = tonumber(ARGV[i + 1])
  if scheduled > 0 then redis.call('ZADD', batch_schedule, unpack(ARGV, i + 2, i + 1 + 2 * scheduled)) end
  batch_touch(batch_bid, batch_idle(batch_bid))
  redis.call('SET', mark, 'written:', 'EX', ARGV[#ARGV])
  return 'ok'
end

return batch_answer(add())
