-- wf_open reads the workflow first: nil when the operation may go on, else
-- 'gone' (its keys expired) or 'stale' (a queue it pushes to is not
-- declared: the caller reads them again). wf_flush checks every key it
-- writes, then writes the plan: released steps' jobs first (wf_push), then
-- the steps' states, so a prefix never leaves a step released without its
-- job; last, the fleet's counts (W.counts).
local function wf_open()
  local m = redis.call('HMGET', W.meta, 'state', 'open', 'queues', 'cancelled_at')
  if not m[1] then return 'gone' end
  wf_state, wf_open_steps, wf_cancelled = m[1], tonumber(m[2]), m[4] ~= false -- cancelled by hand
  for q in string.gmatch(m[3] or '', '%S+') do
    if not wf_queue_key[q] then return 'stale' end
  end
end

local function wf_flush()
  local lists, jids, order, checks = {}, {}, {}, wf_end_checks()
  for _, j in ipairs(wf_released) do
    local queue, payload = string.sub(wf_get('on', j), 2), wf_get('jobs', j) -- a step added by this call: its job as put
    local key = wf_queue_key[queue]
    if not payload or not key then return redis.error_reply('ERR workflow step ' .. j .. ': no job or queue; nothing was changed') end
    if not lists[queue] then lists[queue], jids[queue], order[#order + 1] = {}, {}, queue end
    table.insert(lists[queue], '{"enqueued_at":' .. wf_stamp .. ',' .. string.sub(payload, 2))
    table.insert(jids[queue], j)
  end
  wf_push_checks(checks, order)
  for h, dirty in pairs(wf_dirty) do
    if next(dirty) then checks[#checks + 1], checks[#checks + 2] = W[h], 'hash' end
  end
  guard_all(checks)
  for _, queue in ipairs(order) do wf_push(queue, lists[queue], jids[queue]) end
  for h, dirty in pairs(wf_dirty) do
    local args = {}
    for j in pairs(dirty) do
      args[#args + 1], args[#args + 2] = j, wf_value(h, j)
      if #args >= 1000 then redis.call('HSET', W[h], unpack(args)); args = {} end
    end
    if #args > 0 then redis.call('HSET', W[h], unpack(args)) end
  end
  for field, value in pairs(wf_meta) do redis.call('HSET', W.meta, field, value) end
  for k, field in pairs(WF_COUNT) do
    if wf_delta[k] ~= 0 then redis.call('HINCRBY', W.meta, field, wf_delta[k]) end
  end
  for field, n in pairs({released = #wf_released, cancelled = wf_delta.c}) do if n > 0 then redis.call('HINCRBY', W.counts, field, n) end end
  wf_end_write()
end
