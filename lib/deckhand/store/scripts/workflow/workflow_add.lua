-- Adds steps to a held workflow (a push writes them a slice at a time); the
-- last slice starts it, releasing every step that waits for nothing. A step
-- there already is left as it is, so a push written again after a failure
-- adds each step once. ARGV after the queues: 's' to start it ('' not to),
-- n, then 6 per step: jid; condition and queue ('s', 'c' or 'f', then the
-- queue's name; 'g' alone for a sub-workflow); its parents' jids
-- (space-separated, each added before it: a sub-workflow's are its
-- steps); its name; its job (JSON without enqueued_at; '' for a
-- sub-workflow); its info (JSON).
-- Returns 'ok', 'closed' (it started already), 'gone' or 'stale'; an error
-- naming a parent it lacks, before any write.
local function add()
  local closed = wf_open()
  if closed then return closed end
  if wf_state ~= 'held' then return 'closed' end
  local queues, roots = redis.call('HGET', W.meta, 'queues'), {}
  for i = 3, 2 + 6 * tonumber(wf_arg(2)), 6 do
    local j, on = wf_arg(i), wf_arg(i + 1)
    if not wf_get('state', j) then
      local queue, left, group = string.sub(on, 2), 0, on == 'g'
      for p in string.gmatch(wf_arg(i + 2), '%S+') do
        if not wf_get('state', p) then return redis.error_reply('ERR workflow: step ' .. j .. ' waits for ' .. p .. ', which it does not have; nothing was changed') end
        left = left + 1
        wf_append('kids', p, j)
      end
      if group and left == 0 then return redis.error_reply('ERR workflow: sub-workflow ' .. j .. ' has no steps; nothing was changed') end
      if not group and not string.find(' ' .. queues .. ' ', ' ' .. queue .. ' ', 1, true) then
        if not wf_queue_key[queue] then return 'stale' end
        queues = (queues == '') and queue or (queues .. ' ' .. queue)
      end
      wf_put('state', j, 'w')
      wf_put('on', j, on)
      wf_put('parents', j, wf_arg(i + 2))
      wf_put('wait', j, left)
      wf_append('names', wf_arg(i + 3), j)
      wf_put('info', j, wf_arg(i + 5))
      if not group then -- a sub-workflow is no step of its own: it has no job, and is not counted
        wf_delta.open, wf_delta.total = wf_delta.open + 1, wf_delta.total + 1
        wf_put('jobs', j, wf_arg(i + 4))
      end
      if left == 0 then roots[#roots + 1] = j end
    end
  end
  wf_meta.queues = queues
  local stored = redis.call('HGET', W.meta, 'roots')
  if wf_arg(1) ~= 's' then
    wf_meta.roots = (stored == '' or #roots == 0) and (stored .. table.concat(roots, ' ')) or (stored .. ' ' .. table.concat(roots, ' '))
    return wf_flush() or 'ok'
  end
  for r in string.gmatch(stored, '%S+') do roots[#roots + 1] = r end
  wf_state, wf_meta.state, wf_meta.roots = 'running', 'running', ''
  for _, r in ipairs(roots) do
    wf_move(r, 'q')
    wf_released[#wf_released + 1] = r
  end
  local refused = wf_flush()
  if refused then return refused end
  redis.call('HINCRBY', W.counts, 'pushed', 1) -- a hash: wf_flush checked it
  return 'ok'
end

return add()
