-- A queue move's second half for a fair queue's tenants' jobs (lib/fair.lua),
-- in the new tag's slot (Store::QueueMove): writes a batch
-- move_fair_take.lua held, once (a marker of the batch's id, written with
-- it, makes a second call change nothing). Each job keeps its lead over the
-- virtual time: its score is moved from the old tag's clock to the new
-- one's (score - old virtual time + new virtual time), so a tenant's jobs
-- keep their order and the tenants their turns, among the jobs pushed
-- under the new tag meanwhile. Each tenant's count goes up and its last
-- score is raised to its last job's, so its next push goes behind them.
-- As a push does, a job that finds the queue and the tenants' jobs both
-- empty goes straight onto the queue, where an idle server's wait takes it
-- at once; a job already waiting is not added twice.
--
-- KEYS[1]  the queue (list)
-- KEYS[2]  its tenants' jobs (sorted set)
-- KEYS[3]  its tenants hash
-- KEYS[4]  the batch's marker
-- ARGV[1]  seconds the marker lives
-- ARGV[2]  the old tag's virtual time, as taken
-- ARGV[3..] member and score in turn, lowest score first (as taken)
--
-- Returns how many it wrote (0: written before).
local list, jobs, tenants, marker = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
guard_all({list, 'list', jobs, 'zset', tenants, 'hash', marker, 'string'})
if redis.call('EXISTS', marker) == 1 then
  return 0
end
local shift = tonumber(redis.call('HGET', tenants, '~vt') or '0') - tonumber(ARGV[2])

local first, added = 3, 0
if redis.call('LLEN', list) == 0 and redis.call('ZCARD', jobs) == 0 and #ARGV >= 4 then
  local member = ARGV[3]
  redis.call('LPUSH', list, string.sub(member, string.find(member, '\n', 1, true) + 1))
  first, added = 5, 1
end

-- Per tenant, in the order first met: its jobs (score, member) and its last score.
local batch, last, order = {}, {}, {}
for i = first, #ARGV, 2 do
  local member, score = ARGV[i], tonumber(ARGV[i + 1]) + shift
  local tenant = string.sub(member, 1, string.find(member, '\n', 1, true) - 1)
  if not batch[tenant] then
    batch[tenant] = {}
    order[#order + 1] = tenant
  end
  local of = batch[tenant]
  of[#of + 1] = score
  of[#of + 1] = member
  last[tenant] = math.max(last[tenant] or score, score)
end
for _, tenant in ipairs(order) do
  local args, n = batch[tenant], 0
  for from = 1, #args, 1000 do
    n = n + redis.call('ZADD', jobs, 'NX', unpack(args, from, math.min(from + 999, #args)))
  end
  if n > 0 then
    local f = redis.call('HGET', tenants, 'f:' .. tenant)
    if not f or last[tenant] > tonumber(f) then
      redis.call('HSET', tenants, 'f:' .. tenant, last[tenant])
    end
    redis.call('HINCRBY', tenants, 'n:' .. tenant, n)
  end
  added = added + n
end
redis.call('SET', marker, '1', 'EX', ARGV[1])
return added
