-- The workflow ends once no step is open: cancelled if someone cancelled
-- it, else failed if a step failed or died, else succeeded. The ending goes
-- to its done list, for waiters (Deckhand::Workflow#wait), and its keys
-- take the TTL of an ended workflow.
local wf_ending = false

local function wf_end_checks()
  wf_ending = wf_state == 'running' and wf_open_steps + wf_delta.open == 0
  return wf_ending and {W.done, 'list', W.expiry, 'zset', W.counts, 'hash'} or {W.counts, 'hash'}
end

-- After the counts are written (lib/workflow_flush.lua).
local function wf_end_write()
  if not wf_ending then return end
  local m = redis.call('HMGET', W.meta, 'failed', 'dead', 'done_ttl', 'id', 'cancelled_at')
  local outcome = m[5] and 'cancelled' or ((tonumber(m[1]) + tonumber(m[2]) > 0) and 'failed' or 'succeeded')
  local ttl = tonumber(m[3])
  redis.call('HSET', W.meta, 'state', outcome, 'ended_at', wf_now)
  redis.call('DEL', W.done)
  redis.call('RPUSH', W.done, cjson.encode({state = outcome, ended_at = wf_now}))
  for i = 1, 13 do redis.call('PEXPIRE', KEYS[i], ttl) end
  redis.call('ZADD', W.expiry, wf_now + ttl, m[4])
  redis.call('HINCRBY', W.counts, 'ended:' .. outcome, 1)
end
