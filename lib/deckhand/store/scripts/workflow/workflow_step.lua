-- One step's news from the server running its job; the same news told twice
-- (a job run again after a crash) changes nothing. ARGV after the queues: the
-- news (r started, y failed and will be retried, q put back unrun: over a
-- limit, or handed back at a shutdown; s succeeded, x dropped, d died, c
-- cancelled by hand: Client.cancel), the jid, its data (s: the value as
-- JSON, x, d, c: why). Replies, besides 'gone' and 'stale': r: 'run', 'done'
-- (it succeeded before: do not run it again) or 'cancelled'; s, x, d, c:
-- 'ok' (its end is written, what waits for it released or cancelled) or
-- 'seen' (it ended before: nothing changed); y, q: 'ok'; 'unknown' for a
-- jid the workflow does not have; r: 'retried' for a step that died or was
-- dropped (workflow_reopen.lua then says whether it runs).
local function step()
  local closed = wf_open()
  if closed then return closed end
  local news, j, data = wf_arg(1), wf_arg(2), wf_arg(3)
  local s = wf_get('state', j)
  if not s or s == 'w' then return 'unknown' end
  if news == 'r' then
    if s == 's' then return 'done' elseif s == 'c' then return 'cancelled' end
    if s == 'x' or s == 'd' then return 'retried' end
    -- Running again after a crash: it runs, its news changes nothing.
    if s ~= 'q' and s ~= 'y' then return 'run' end
    if s == 'y' and redis.call('HEXISTS', W.meta, 'cancelled_at') == 1 then
      wf_finish(j, 'c') -- its workflow was cancelled while it failed: its retry does not run
      return wf_flush() or 'cancelled'
    end
    wf_move(j, 'r')
  elseif news == 'y' or news == 'q' then
    if s ~= 'q' and s ~= 'r' then return 'ok' end
    if news == 'q' and redis.call('HEXISTS', W.meta, 'cancelled_at') == 1 then wf_finish(j, 'c') else wf_move(j, news) end -- q: cancelled with its workflow
  elseif news == 's' or news == 'x' or news == 'd' or news == 'c' then
    if WF_ENDED[s] then return 'seen' end
    wf_finish(j, news)
    if data ~= '' then wf_put((news == 's') and 'results' or 'errors', j, data) end
  else
    return redis.error_reply('ERR workflow_step: unknown news ' .. tostring(news))
  end
  return wf_flush() or ((news == 'r') and 'run' or 'ok')
end

return step()
