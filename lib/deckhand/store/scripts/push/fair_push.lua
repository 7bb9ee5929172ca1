-- Pushes jobs of tenants to a fair queue (lib/fair.lua explains the scores).
--
-- KEYS[1]  the queue (list)
-- KEYS[2]  its tenants' jobs (sorted set)
-- KEYS[3]  its tenants hash
-- ARGV     per job, triples: tenant, the tenant's step (1 / weight), payload
--
-- A job pushed while nothing waits (the queue and the sorted set both
-- empty) goes straight onto the queue: no other tenant waits to be served
-- first, and an idle server's blocking wait on the queue takes it at once.
-- Returns how many jobs were added (a payload already waiting is not added
-- twice).

-- Conservation: every key written is read first, so a refusal changes nothing.
local queued = redis.call('LLEN', KEYS[1])
local waiting = redis.call('ZCARD', KEYS[2])
local vt = tonumber(redis.call('HGET', KEYS[3], '~vt') or '0')

-- Each tenant's last score, read once per call; its jobs added with one
-- ZADD per 500 (a payload already waiting is not added again: NX).
local last, batch, order = {}, {}, {}
local added = 0
for i = 1, #ARGV, 3 do
  local tenant, step, payload = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  if queued == 0 and waiting == 0 then
    redis.call('LPUSH', KEYS[1], payload)
    queued = 1
    added = added + 1
  else
    if not last[tenant] then
      last[tenant] = math.max(vt, tonumber(redis.call('HGET', KEYS[3], 'f:' .. tenant) or '0'))
      batch[tenant] = {}
      order[#order + 1] = tenant
    end
    last[tenant] = last[tenant] + step
    local pairs_of = batch[tenant]
    pairs_of[#pairs_of + 1] = last[tenant]
    pairs_of[#pairs_of + 1] = tenant .. '\n' .. payload
  end
end
for _, tenant in ipairs(order) do
  local args, n = batch[tenant], 0
  for from = 1, #args, 1000 do
    n = n + redis.call('ZADD', KEYS[2], 'NX', unpack(args, from, math.min(from + 999, #args)))
  end
  if n > 0 then
    redis.call('HSET', KEYS[3], 'f:' .. tenant, last[tenant])
    redis.call('HINCRBY', KEYS[3], 'n:' .. tenant, n)
  end
  added = added + n
end
return added
