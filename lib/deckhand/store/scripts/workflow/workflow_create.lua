-- Creates a workflow, held: no step runs before workflow_add.lua starts it
-- (lib/workflow.lua holds KEYS and ARGV). Every hash is made at once with a
-- placeholder field "~", each with the TTL, so no key is made later without
-- one; the workflow joins the index, which drops those that expired.
--
-- ARGV after the queues: its id, description, and TTLs (ms) while it runs
-- and once it ended. Returns 'ok', or 'exists' (a push of it began before:
-- nothing changed).
if redis.call('EXISTS', W.meta) == 1 then return 'exists' end
local wid, ttl = wf_arg(1), tonumber(wf_arg(3))
local checks = {W.meta, 'hash', W.done, 'list', W.index, 'zset', W.expiry, 'zset'}
for i = 2, 12 do checks[#checks + 1], checks[#checks + 2] = KEYS[i], 'hash' end
guard_all(checks)
redis.call('HSET', W.meta, 'id', wid, 'description', wf_arg(2), 'created_at', wf_now, 'ttl', ttl, 'done_ttl', wf_arg(4),
  'state', 'held', 'queues', '', 'roots', '', 'open', 0, 'total', 0, 'succeeded', 0, 'failed', 0, 'dead', 0, 'cancelled', 0)
for i = 2, 12 do redis.call('HSET', KEYS[i], '~', '') end
for i = 1, 12 do redis.call('PEXPIRE', KEYS[i], ttl) end
redis.call('ZADD', W.index, wf_now, wid)
redis.call('ZADD', W.expiry, wf_now + ttl, wid)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', W.expiry, '-inf', wf_now, 'LIMIT', 0, 100)) do
  redis.call('ZREM', W.index, old)
  redis.call('ZREM', W.expiry, old)
end
return 'ok'
