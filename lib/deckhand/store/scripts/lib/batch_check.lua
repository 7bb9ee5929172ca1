-- Shared by the batch scripts that count a job or a hold, after
-- lib/batch.lua and lib/batch_outbox.lua: firing callbacks and the
-- completion check, up the lineage.
--
-- A batch is complete when no hold remains, every pending job has failed at
-- least once and every child batch is complete; it has succeeded when no job
-- is pending and every child batch has succeeded. Callbacks of a child batch
-- are jobs of its parent, so a parent succeeds only after them.

-- Fires the callback jobs of one event; with a parent, they join it.
local function batch_fire(b, event, parent)
  local list = redis.call('HGET', batch_key(b), 'on_' .. event)
  if not list then return end
  local entries = cjson.decode(list)
  if #entries == 0 then return end
  local tail = ',"created_at":' .. batch_stamp .. ',"enqueued_at":' .. batch_stamp
  if parent then tail = tail .. ',"bid":' .. cjson.encode(parent) end
  tail = tail .. '}'
  local jids, payloads = {}, {}
  for i, entry in ipairs(entries) do
    jids[i] = entry[1]
    payloads[i] = entry[2] .. tail
  end
  if parent and batch_exists(parent) then
    redis.call('SADD', batch_key(parent, 'jids'), unpack(jids))
    redis.call('HINCRBY', batch_key(parent), 'total', #jids)
    batch_touch(parent, batch_idle(parent))
  end
  local queue = redis.call('HGET', batch_key(b), 'callback_queue')
  if batch_outbox_age then
    for i, jid in ipairs(jids) do batch_record(jid, queue, payloads[i]) end
  else
    redis.call('SADD', batch_queues, queue)
    redis.call('LPUSH', batch_queue_key(queue), unpack(payloads))
  end
end

local batch_check

local function batch_child_settled(parent, field)
  if not batch_exists(parent) then return end
  redis.call('HINCRBY', batch_key(parent), field, -1)
  batch_check(parent)
end

-- Marks batch b complete and succeeded when it now is, firing its callbacks
-- and telling its parent.
batch_check = function(b)
  local h = batch_key(b)
  local f = redis.call('HMGET', h, 'hold', 'kids_pending', 'kids_incomplete', 'complete_at', 'success_at', 'idle_ttl',
    'success_ttl')
  if not f[6] or tonumber(f[1]) > 0 then return end
  local pending = redis.call('SCARD', batch_key(b, 'jids'))
  local parent = batch_parent(b)
  local completed = false
  if not f[4] and tonumber(f[3]) <= 0 and pending == redis.call('HLEN', batch_key(b, 'failed')) then
    redis.call('HSET', h, 'complete_at', batch_now)
    completed = true
    batch_fire(b, 'complete', parent)
    if parent then batch_child_settled(parent, 'kids_incomplete') end
  end
  if not f[5] and pending == 0 and tonumber(f[2]) <= 0 then
    redis.call('HSET', h, 'success_at', batch_now)
    batch_fire(b, 'success', parent)
    batch_touch(b, f[7])
    if parent then batch_child_settled(parent, 'kids_pending') end
  elseif completed then
    batch_touch(b, f[6])
  end
end
