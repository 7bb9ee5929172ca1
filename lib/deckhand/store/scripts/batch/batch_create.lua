-- Creates a batch (Deckhand::Batch), held open until batch_release.lua, and
-- makes it a child of its parent. Its lineage: the new batch, then its
-- parent if any.
--
-- KEYS[1..4]  batch index, expiry index, then plain: queues set, schedule set;
--             cluster: outbox (zset), outbox jobs (hash)
-- KEYS[5..]   five per batch of the lineage (hash, jids, failed, dead, kids),
--             then (plain only) one per queue named in ARGV
-- ARGV[1..3]  now (epoch ms), now as job payloads write it, '' (plain) or the
--             outbox age in ms (cluster)
-- ARGV[4..]   d and the lineage's d bids (this batch, then up), q and the q
--             declared queues (lib/batch.lua)
-- then        parent bid or '', idle ttl ms, success ttl ms, callback queue,
--             description, on_complete, on_success, on_death (JSON arrays of
--             [jid, payload without its closing brace], or '')
-- Returns     'ok', 'exists', 'parent_gone' or 'parent_done'
--             (cluster: {reply, n, jid, queue, payload, ...}, lib/batch_outbox.lua)
local function create()
  batch_guard()
  local h = batch_key(batch_bid)
  if batch_exists(batch_bid) then return 'exists' end
  local parent = batch_arg(1)
  if parent ~= '' then
    if not batch_exists(parent) then return 'parent_gone' end
    if redis.call('HEXISTS', batch_key(parent), 'success_at') == 1 then return 'parent_done' end
  end
  redis.call('HSET', h, 'created_at', batch_now, 'total', 0, 'hold', 1, 'kids_pending', 0, 'kids_incomplete', 0,
    'idle_ttl', batch_arg(2), 'success_ttl', batch_arg(3), 'callback_queue', batch_arg(4))
  local optional = {parent = batch_arg(1), description = batch_arg(5), on_complete = batch_arg(6),
    on_success = batch_arg(7), on_death = batch_arg(8)}
  for field, value in pairs(optional) do
    if value ~= '' then redis.call('HSET', h, field, value) end
  end
  redis.call('ZADD', batch_index, batch_now, batch_bid)
  batch_touch(batch_bid, batch_arg(2))
  if parent ~= '' then
    redis.call('HINCRBY', batch_key(parent), 'kids_pending', 1)
    redis.call('HINCRBY', batch_key(parent), 'kids_incomplete', 1)
    redis.call('SADD', batch_key(parent, 'kids'), batch_bid)
    batch_touch(parent, batch_idle(parent))
  end
  return 'ok'
end

return batch_answer(create())
