-- A step that died or was dropped starts again (retried by hand, or run
-- again after a crash): its end is undone (lib/workflow_reopen.lua), and an
-- ended workflow runs again, its ending gone, its keys' TTL a running one's.
-- ARGV after the queues: the jid. Replies 'run', 'cancelled' (the workflow
-- was cancelled by hand: it does not run), or as workflow_step.lua does.
local function reopen()
  local closed = wf_open()
  if closed then return closed end
  local j, s = wf_arg(1), wf_get('state', wf_arg(1))
  if not s or s == 'w' then return 'unknown' end
  if s ~= 'x' and s ~= 'd' then return 'run' end -- told twice
  local m = redis.call('HMGET', W.meta, 'cancelled_at', 'ttl', 'id')
  if m[1] then return 'cancelled' end
  local ended = wf_state ~= 'running'
  if ended then guard_all({W.done, 'list', W.expiry, 'zset'}) end
  wf_reopen(j)
  wf_state, wf_meta.state, wf_meta.ended_at = 'running', 'running', ''
  local refused = wf_flush()
  if refused then return refused end
  if ended then
    redis.call('DEL', W.done)
    for i = 1, 13 do redis.call('PEXPIRE', KEYS[i], tonumber(m[2])) end
    redis.call('ZADD', W.expiry, wf_now + tonumber(m[2]), m[3])
  end
  return 'run'
end

return reopen()
