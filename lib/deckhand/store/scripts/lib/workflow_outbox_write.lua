-- Cluster mode, for lib/workflow_push.lua: the jobs go to the {workflows} slot's outbox, jid => JSON [queue,
-- payload] scored by now, written once; Store::Features::WorkflowOutbox pushes each to its queue.
W.outbox, W.outbox_jobs = KEYS[14], KEYS[18]
local function wf_push_checks(checks, order)
  if #order > 0 then checks[#checks + 1], checks[#checks + 2], checks[#checks + 3], checks[#checks + 4] = W.outbox, 'zset', W.outbox_jobs, 'hash' end
end
local function wf_push(queue, payloads, jids)
  for i, payload in ipairs(payloads) do
    redis.call('ZADD', W.outbox, wf_now, jids[i])
    redis.call('HSET', W.outbox_jobs, jids[i], cjson.encode({queue, payload}))
  end
end
