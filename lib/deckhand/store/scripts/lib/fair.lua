-- Fair queues (docs/fair-queues.md): the jobs of a queue's tenants wait in
-- one sorted set beside the queue, each scored with its virtual finish time
-- (weighted fair queueing): a tenant's next job is scored
-- max(the queue's virtual time, the tenant's last score) + 1 / weight, and
-- the virtual time is the score of the last job that left. A tenant that
-- pushed 100,000 jobs holds scores far ahead; one that pushes now starts at
-- the virtual time, so its jobs interleave with the head of the line.
--
-- Each member is "<tenant>\n<payload>" (a tenant name holds no newline,
-- Config::FairQueues checks; the payload makes the member unique). The
-- tenants hash holds "~vt" (the virtual time) and, per tenant with jobs
-- waiting, "f:<tenant>" (its last score) and "n:<tenant>" (how many wait):
-- a tenant whose last job left is deleted, so the hash holds only tenants
-- with work.

-- Jobs of the tenants waiting for the queue, checking both keys' types (a
-- read refuses a key of another type): 0 when none.
local function fair_waiting(jobs, tenants)
  local n = redis.call('ZCARD', jobs)
  if n > 0 then redis.call('HEXISTS', tenants, '~vt') end
  return n
end

-- Files one job in its tenant's turn, as fair_push.lua does for a push: at
-- max(the virtual time, the tenant's last score) + step; straight onto the
-- queue `list` when it and the tenants' jobs are both empty (nobody waits to
-- go first). For the jobs that come back to a fair queue (the scheduler's
-- due retries and scheduled jobs). The caller checked the three keys'
-- types. Returns 1 when filed, 0 when the same job already waits.
local function fair_add(list, jobs, tenants, tenant, step, payload)
  if redis.call('LLEN', list) == 0 and redis.call('ZCARD', jobs) == 0 then
    redis.call('LPUSH', list, payload)
    return 1
  end
  local vt = tonumber(redis.call('HGET', tenants, '~vt') or '0')
  local score = math.max(vt, tonumber(redis.call('HGET', tenants, 'f:' .. tenant) or '0')) + step
  if redis.call('ZADD', jobs, 'NX', score, tenant .. '\n' .. payload) == 0 then return 0 end
  redis.call('HSET', tenants, 'f:' .. tenant, score)
  redis.call('HINCRBY', tenants, 'n:' .. tenant, 1)
  return 1
end

-- Moves up to `want` of the tenants' jobs, lowest score first, onto the
-- queue `list` behind the jobs it holds (pushed on the left, taken from the
-- right); the queue is where the fetch, the recovery and the idle waiters
-- find them. Destination first: the jobs are in the queue before they
-- leave the sorted set. Returns how many moved.
local function fair_fill(list, jobs, tenants, want)
  local head = redis.call('ZRANGE', jobs, 0, want - 1)
  local n = #head
  if n == 0 then return 0 end
  local vt = redis.call('ZSCORE', jobs, head[n])
  local left = {}
  for i = 1, n do
    local member = head[i]
    local cut = string.find(member, '\n', 1, true)
    local tenant = string.sub(member, 1, cut - 1)
    head[i] = string.sub(member, cut + 1)
    left[tenant] = (left[tenant] or 0) + 1
  end
  redis.call('LPUSH', list, unpack(head))
  redis.call('ZREMRANGEBYRANK', jobs, 0, n - 1)
  redis.call('HSET', tenants, '~vt', vt)
  for tenant, n in pairs(left) do
    if redis.call('HINCRBY', tenants, 'n:' .. tenant, -n) <= 0 then
      redis.call('HDEL', tenants, 'n:' .. tenant, 'f:' .. tenant)
    end
  end
  return n
end

-- fetch.lua's step: tops up each source with tenants' jobs waiting, to at
-- most what this fetch may take, before its lot is filed from it (one
-- atomic step, so the fair order holds across processes). Updates lengths.
local function fair_fill_sources(q, sources, limit, lengths, waiting)
  for j = 1, sources do
    if (waiting[j] or 0) > 0 and lengths[j] < limit then
      local queue = tonumber(ARGV[1 + 3 * j])
      local want = math.min(limit - lengths[j], waiting[j])
      lengths[j] = lengths[j] + fair_fill(KEYS[5 * q + j], KEYS[3 * q + queue], KEYS[4 * q + queue], want)
    end
  end
end
