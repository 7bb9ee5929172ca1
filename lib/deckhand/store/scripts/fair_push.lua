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

local added = 0
for i = 1, #ARGV, 3 do
  local tenant, step, payload = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  if queued == 0 and waiting == 0 then
    redis.call('LPUSH', KEYS[1], payload)
    queued = 1
    added = added + 1
  else
    local last = tonumber(redis.call('HGET', KEYS[3], 'f:' .. tenant) or '0')
    local score = math.max(vt, last) + step
    if redis.call('ZADD', KEYS[2], 'NX', score, tenant .. '\n' .. payload) == 1 then
      redis.call('HSET', KEYS[3], 'f:' .. tenant, score)
      redis.call('HINCRBY', KEYS[3], 'n:' .. tenant, 1)
      waiting = waiting + 1
      added = added + 1
    end
  end
end
return added
