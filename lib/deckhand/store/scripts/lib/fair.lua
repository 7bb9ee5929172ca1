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

-- Reads up to `want` of the tenants' jobs, lowest score first (nothing
-- written): {payloads, the last one's score, tenant => jobs}, or nil when
-- none wait. fair_taken writes their leaving once they are written where
-- they go.
local function fair_head(jobs, want)
  local found = redis.call('ZRANGE', jobs, 0, want - 1, 'WITHSCORES') -- the last score with them: no ZSCORE
  local n = #found / 2
  if n == 0 then return nil end
  local payloads, left = {}, {}
  for i = 1, n do
    local member = found[2 * i - 1]
    local cut = string.find(member, '\n', 1, true)
    local tenant = string.sub(member, 1, cut - 1)
    payloads[i] = string.sub(member, cut + 1)
    left[tenant] = (left[tenant] or 0) + 1
  end
  return {payloads, found[2 * n], left}
end

-- The jobs of fair_head left the sorted set: removes them, moves the
-- virtual time on, and takes tenants whose last job left out of the hash.
local function fair_taken(jobs, tenants, head)
  redis.call('ZREMRANGEBYRANK', jobs, 0, #head[1] - 1)
  redis.call('HSET', tenants, '~vt', head[2])
  for tenant, n in pairs(head[3]) do
    if redis.call('HINCRBY', tenants, 'n:' .. tenant, -n) <= 0 then
      redis.call('HDEL', tenants, 'n:' .. tenant, 'f:' .. tenant)
    end
  end
end

-- Puts jobs read by fair_head onto the queue `list` behind the jobs it
-- holds (pushed on the left, taken from the right), where the fetch, the
-- recovery and the idle waiters find them. Destination first: the jobs are
-- in the queue before they leave the sorted set.
local function fair_onto(list, jobs, tenants, head)
  redis.call('LPUSH', list, unpack(head[1]))
  fair_taken(jobs, tenants, head)
end

-- fetch.lua's step: tops up each source with tenants' jobs waiting, to at
-- most what this fetch may take, before its lot is filed from it (one
-- atomic step, so the fair order holds across processes). Updates lengths.
-- Returns the jobs held for sources whose queue is empty (read, not yet
-- moved): fair_file puts them straight into the lot, or onto the queue.
local function fair_fill_sources(q, sources, limit, lengths, waiting)
  local held = {}
  for j = 1, sources do
    if (waiting[j] or 0) > 0 and lengths[j] < limit then
      local queue = tonumber(ARGV[1 + 3 * j])
      local jobs, tenants = KEYS[3 * q + queue], KEYS[4 * q + queue]
      local head = fair_head(jobs, math.min(limit - lengths[j], waiting[j]))
      if head and lengths[j] == 0 then
        held[j] = {jobs, tenants, head}
      elseif head then
        fair_onto(KEYS[5 * q + j], jobs, tenants, head)
      end
      lengths[j] = lengths[j] + (head and #head[1] or 0)
    end
  end
  return held
end

-- Files `take` jobs of source j into `lot`: the held jobs of a fair queue
-- whose queue was empty go straight into the lot when it takes them all
-- (the lot's list in the order taken, as file_lot leaves it), saving their
-- way through the queue; otherwise onto the queue first. Returns how many
-- were filed.
local function fair_file(held, j, source, lot, take)
  local h = held[j]
  if h then
    held[j] = nil
    if take == #h[3][1] then
      redis.call('RPUSH', lot, unpack(h[3][1]))
      fair_taken(h[1], h[2], h[3])
      return take
    end
    fair_onto(source, h[1], h[2], h[3])
  end
  if take > 0 then return file_lot(source, lot, take) end
  return 0
end

-- Held jobs no source filed (the fetch stopped before their source): onto
-- their queues.
local function fair_release(held, lists)
  for j, h in pairs(held) do fair_onto(KEYS[lists + j], h[1], h[2], h[3]) end
end
