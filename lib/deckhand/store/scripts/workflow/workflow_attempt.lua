-- A step's run starts or stops without an end, told by the server running its
-- job (its ends: workflow_step.lua); the same news told twice changes nothing.
-- ARGV after the queues: the news (r started, y failed and will be retried, q
-- put back unrun: over a limit, or handed back at a shutdown), the jid, and
-- the run's token ('' from a server before tokens: the news applies as it
-- did). r keeps the token of the run it starts (W.runs); a y or q carrying
-- another run's token is late news of a run since started again elsewhere,
-- and changes nothing.
-- Replies, besides 'gone' and 'stale': r: 'run', 'done' (it succeeded before:
-- do not run it again), 'cancelled', or 'retried' for a step that died or was
-- dropped (workflow_reopen.lua then says whether it runs); y, q: 'ok', or
-- 'stale_run' (not the run now started); 'unknown' for a jid the workflow
-- does not have.
--
-- No news here releases a step, so none travels down the graph: where the
-- workflow was cancelled by hand, a step that had not started is cancelled
-- alone. Nothing waits for it any more: the cancel cancelled every waiting
-- step, and no step waits again in a cancelled workflow (workflow_add.lua,
-- workflow_extend.lua and workflow_reopen.lua each refuse one).
local run

-- The plan written, then, where r kept its run in a workflow pushed before
-- runs were kept (no runs hash: this call made it), the workflow's TTL on it.
local function written(reply)
  local refused = wf_flush()
  if refused then return refused end
  if run and redis.call('PTTL', W.runs) == -1 then
    local ttl = redis.call('PTTL', W.meta)
    if ttl > 0 then redis.call('PEXPIRE', W.runs, ttl) end
  end
  return reply
end

local function attempt()
  local closed = wf_open()
  if closed then return closed end
  local news, j = wf_arg(1), wf_arg(2)
  run = wf_arg(3) ~= '' and wf_arg(3)
  local s = wf_get('state', j)
  if not s or s == 'w' then return 'unknown' end
  if news == 'r' then
    if s == 's' then return 'done' elseif s == 'c' then return 'cancelled' end
    if run then wf_set('runs', j, run) end
    if s == 'x' or s == 'd' then return written('retried') end
    -- Running again after a crash: it runs, its news changes nothing but its run.
    if s ~= 'q' and s ~= 'y' then return written('run') end
    if s == 'y' and wf_cancelled then
      wf_move(j, 'c') -- its workflow was cancelled while it failed: its retry does not run
      return written('cancelled')
    end
    wf_move(j, 'r')
  elseif news == 'y' or news == 'q' then
    if s ~= 'q' and s ~= 'r' then return 'ok' end
    if run and wf_get('runs', j) ~= run then return 'stale_run' end
    wf_move(j, (news == 'q' and wf_cancelled) and 'c' or news) -- q: cancelled with its workflow
  else
    return redis.error_reply('ERR workflow_attempt: unknown news ' .. tostring(news))
  end
  return written((news == 'r') and 'run' or 'ok')
end

return attempt()
