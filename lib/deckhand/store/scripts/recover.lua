-- Recovers the in-flight record of a process whose heartbeat expired, in one
-- atomic step: its unsettled jobs go back to the front of their queues (they
-- were next in line), counted as recoveries where the process may have been
-- running them. A job whose count reaches the limit is a poison pill: it
-- leaves circulation for its queue's poison hash, from which the reaper writes
-- it to the dead set. Payloads go back exactly as they were: the counts live
-- in each queue's recoveries hash, keyed by jid.
--
-- Counting rule (see docs/reliability.md):
--   * a job with no count (never recovered before) counts, since Redis cannot
--     tell whether the dead process had started it;
--   * a job with a count (a suspect) counts only if the process recorded it
--     as running (suspects record themselves before they start);
--   * jobs in the landing lists were never handed out: they never count.
--
-- KEYS[1]      the process record (identity); if it exists the process lives
-- KEYS[2]      owners hash
-- KEYS[3]      the queues set
-- KEYS[4]      the processes set
-- KEYS[5..]    per queue, six keys: the process's in-flight hash and landing
--              list for it, the queue list, the queue's recovery counts, the
--              process's running suspects of it, the queue's poison hash
-- ARGV[1]      identity
-- ARGV[2]      recoveries after which a job is a poison pill
-- ARGV[3]      seconds the recovery counts live after the last recovery
-- ARGV[4..]    the queue names, in KEYS order
--
-- Returns {recovered, counted, poisoned}, or {-1, 0, 0} when the process is
-- alive and {-2, 0, 0} when its record was already recovered.
local identity = ARGV[1]
local limit = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])

if redis.call('EXISTS', KEYS[1]) == 1 then return {-1, 0, 0} end
if redis.call('HEXISTS', KEYS[2], identity) == 0 then return {-2, 0, 0} end

local function jid_of(payload)
  local ok, job = pcall(cjson.decode, payload)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then return job.jid end
  return nil
end

local recovered, counted, poisoned = 0, 0, 0

for i = 0, (#KEYS - 4) / 6 - 1 do
  local base = 5 + 6 * i
  local inflight, landing, queue = KEYS[base], KEYS[base + 1], KEYS[base + 2]
  local counts, suspects, poison = KEYS[base + 3], KEYS[base + 4], KEYS[base + 5]
  local name = ARGV[4 + i]
  local before, bumped = recovered, false

  -- Landing lists first, so the jobs taken earliest end up at the very front.
  while redis.call('LMOVE', landing, queue, 'LEFT', 'RIGHT') do recovered = recovered + 1 end

  local ids = {}
  for _, field in ipairs(redis.call('HKEYS', inflight)) do
    local id = tonumber(field)
    if id then ids[#ids + 1] = id end
  end
  table.sort(ids, function(a, b) return a > b end)

  for _, id in ipairs(ids) do
    local jobs = lot_decode(redis.call('HGET', inflight, id))
    local bits = redis.call('HGET', inflight, id .. '~')
    for position = #jobs - 1, 0, -1 do
      if not lot_settled(bits, position) then
        local payload = jobs[position + 1]
        local jid = jid_of(payload)
        local suspect = jid and redis.call('HEXISTS', counts, jid) == 1
        if jid and ((not suspect) or redis.call('SISMEMBER', suspects, jid) == 1) then
          local count = redis.call('HINCRBY', counts, jid, 1)
          counted = counted + 1
          bumped = true
          if count >= limit then
            redis.call('HDEL', counts, jid)
            redis.call('HSET', poison, identity .. '|' .. jid, payload)
            poisoned = poisoned + 1
            payload = nil
          end
        end
        if payload then
          redis.call('RPUSH', queue, payload)
          recovered = recovered + 1
        end
      end
    end
  end

  if bumped then
    redis.call('HINCRBY', counts, '~v', 1)
    redis.call('EXPIRE', counts, ttl)
  end
  if recovered > before then redis.call('SADD', KEYS[3], name) end
  redis.call('DEL', inflight, suspects)
end

redis.call('HDEL', KEYS[2], identity)
redis.call('SREM', KEYS[4], identity)
return {recovered, counted, poisoned}
