-- Cluster mode: pushes a batch's callback jobs to their queue, each jid once.
-- A batch script (batch_*.lua) fired them (recorded in its outbox, in the {batches} slot);
-- this runs in the queue's slot, so the two cannot be one step. The queue's
-- sorted set of pushed callbacks remembers each jid (score: until when, epoch
-- ms), so the same callback handed over again (its first pusher died before
-- clearing the outbox, or two callers took it at once) is not pushed a
-- second time. The set expires with its last entry.
--
-- KEYS[1]  the queue (list); KEYS[2] its pushed callbacks (zset)
-- ARGV[1]  now, epoch ms; ARGV[2] operation; ARGV[3] ms to remember each jid
-- then     push:      jid, payload, jid, payload... in firing order; returns
--                     how many it pushed
--          delivered: jids the outbox no longer holds, remembered for
--                     ARGV[3] ms from now instead; returns 0
--
-- Both keys' types are checked first (lib/guard.lua): a queue of another
-- type would otherwise refuse the push after its jids were remembered as
-- pushed, and no later call would push those callbacks.
local queue, pushed = KEYS[1], KEYS[2]
local now, op, keep = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
guard(queue, 'list')
guard(pushed, 'zset')
redis.call('ZREMRANGEBYSCORE', pushed, '-inf', now)
local payloads = {}
if op == 'push' then
  for i = 4, #ARGV, 2 do
    if redis.call('ZADD', pushed, 'NX', now + keep, ARGV[i]) == 1 then payloads[#payloads + 1] = ARGV[i + 1] end
  end
  if #payloads > 0 then redis.call('LPUSH', queue, unpack(payloads)) end
elseif op == 'delivered' then
  for i = 4, #ARGV do redis.call('ZADD', pushed, 'XX', now + keep, ARGV[i]) end
else
  return redis.error_reply('batch_callbacks: unknown operation ' .. tostring(op))
end
local last = redis.call('ZRANGE', pushed, -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', pushed, last[2]) end
return #payloads
