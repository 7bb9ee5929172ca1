-- Cluster mode: pushes a batch's callback jobs to their queue, each jid once.
-- batch_ops.lua fired them (recorded in its outbox, in the {batches} slot);
-- this runs in the queue's slot, so the two cannot be one step. The queue's
-- sorted set of pushed callbacks remembers each jid (score: until when, epoch
-- ms), so the same callback handed over again (its first pusher crashed
-- before clearing the outbox, or two callers took it at once) is not pushed
-- a second time. Returns how many it pushed.
--
-- KEYS[1]  the queue (list); KEYS[2] its pushed callbacks (zset)
-- ARGV[1]  now, epoch ms; ARGV[2] ms to remember each jid pushed
-- ARGV[3..] jid, payload, jid, payload... in firing order
local queue, pushed = KEYS[1], KEYS[2]
local now, remember = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', pushed, '-inf', now)
local payloads = {}
for i = 3, #ARGV, 2 do
  if redis.call('ZADD', pushed, 'NX', now + remember, ARGV[i]) == 1 then payloads[#payloads + 1] = ARGV[i + 1] end
end
if #payloads > 0 then redis.call('LPUSH', queue, unpack(payloads)) end
local last = redis.call('ZRANGE', pushed, -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', pushed, last[2]) end
return #payloads
