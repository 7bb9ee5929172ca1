-- Cluster mode: the workflows' outbox, in the {workflows} slot, where the
-- workflow scripts record each released step's job (lib/workflow_flush.lua)
-- because its queue is another slot. Store::Features::WorkflowOutbox lists
-- entries, pushes each to its queue once per jid (batch_callbacks.lua, in
-- the queue's slot), then clears them here: an entry leaves the outbox only
-- after its job is in its queue.
--
-- KEYS[1]  the outbox (zset: jid => when released, epoch ms)
-- KEYS[2]  its jobs (hash: jid => JSON [queue, payload])
-- ARGV[1]  list:  ARGV[2] the latest release time to list (epoch ms), ARGV[3]
--                 the most entries; returns {jid, queue, payload, ...}, the
--                 oldest first (an entry whose job is gone leaves the outbox)
--          clear: ARGV[2..] jids now in their queues; returns how many left
local outbox, jobs = KEYS[1], KEYS[2]
guard(outbox, 'zset')
guard(jobs, 'hash')
local op = ARGV[1]
if op == 'list' then
  local out = {}
  local jids = redis.call('ZRANGE', outbox, '-inf', ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))
  if #jids == 0 then return out end
  local entries = redis.call('HMGET', jobs, unpack(jids))
  for i, jid in ipairs(jids) do
    if entries[i] then
      local entry = cjson.decode(entries[i])
      out[#out + 1], out[#out + 2], out[#out + 3] = jid, entry[1], entry[2]
    else
      redis.call('ZREM', outbox, jid)
    end
  end
  return out
elseif op == 'clear' then
  if #ARGV < 2 then return 0 end
  redis.call('HDEL', jobs, unpack(ARGV, 2))
  return redis.call('ZREM', outbox, unpack(ARGV, 2))
end
return redis.error_reply('ERR workflow_outbox: unknown operation ' .. tostring(op))
