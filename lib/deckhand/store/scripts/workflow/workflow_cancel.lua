-- Cancels a workflow by hand: every step that has not started (waiting,
-- released to its queue, or failed and waiting for a retry) is cancelled,
-- and never runs (its job, found later, is told so as it starts: see
-- workflow_step.lua); a running step finishes, releasing nothing; a
-- sub-workflow waiting for its steps is cancelled with them. The
-- workflow ends, as cancelled, once no step runs. ARGV after the queues: why
-- (JSON, kept as each cancelled step's error). Replies the number of steps
-- cancelled, or 'gone', 'stale', or 'ended' (it had ended: nothing changed).
local function cancel()
  local closed = wf_open()
  if closed then return closed end
  if wf_state ~= 'running' and wf_state ~= 'held' then return 'ended' end
  local states, n = redis.call('HGETALL', W.state), 0
  for i = 1, #states, 2 do
    local j, s = states[i], states[i + 1]
    if s == 'w' or s == 'q' or s == 'y' then
      wf_cache.state[j] = s
      if wf_cond(j) == 'g' then -- a sub-workflow is cancelled with its steps, not counted as one
        wf_set('state', j, 'c')
      else
        wf_move(j, 'c')
        n = n + 1
      end
      wf_put('errors', j, wf_arg(1))
    end
  end
  wf_state, wf_meta.state, wf_meta.cancelled_at = 'running', 'running', wf_now
  return wf_flush() or n
end

return cancel()
