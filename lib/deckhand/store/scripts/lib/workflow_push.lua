-- Plain mode (lib/workflow_flush.lua): released steps' jobs go to their queues in the step that releases them.
local function wf_push_checks(checks, order)
  for _, queue in ipairs(order) do checks[#checks + 1], checks[#checks + 2] = wf_queue_key[queue], 'list' end
  if #order > 0 then checks[#checks + 1], checks[#checks + 2] = W.queues, 'set' end
end
local function wf_push(queue, payloads)
  for i = 1, #payloads, 1000 do redis.call('LPUSH', wf_queue_key[queue], unpack(payloads, i, math.min(i + 999, #payloads))) end
  redis.call('SADD', W.queues, queue)
end
