-- A step's end, told by the server running its job (its start, retry and put-back: workflow_attempt.lua);
-- the same end told twice (a job run again after a crash) changes nothing. ARGV after the queues: the end
-- (s succeeded, x dropped, d died, c cancelled by hand: Client.cancel), the jid, its data (s: the value as
-- JSON, x, d, c: why). Replies, besides 'gone', 'stale' and 'unknown' (a jid the workflow does not have):
-- 'ok' (its end is written, what waits for it released or cancelled) or 'seen' (it ended before).
local function step()
  local closed = wf_open()
  if closed then return closed end
  local news, j, data = wf_arg(1), wf_arg(2), wf_arg(3)
  local s = wf_get('state', j)
  if not s or s == 'w' then return 'unknown' end
  if not WF_ENDED[news] then return redis.error_reply('ERR workflow_step: unknown end ' .. tostring(news)) end
  if WF_ENDED[s] then return 'seen' end
  wf_finish(j, news)
  if data ~= '' then wf_put((news == 's') and 'results' or 'errors', j, data) end
  return wf_flush() or 'ok'
end

return step()
