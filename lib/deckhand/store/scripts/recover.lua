-- Recovers the in-flight record of a process whose heartbeat expired, in one
-- atomic step: its jobs go back to the front of their queues (they were next in
-- line), counted as recoveries where the process may have been running them.
-- A job whose count reaches the limit is a poison pill: it leaves circulation
-- for the poison hash, from which the reaper writes it to the dead set.
--
-- Counting rule (see docs/reliability.md):
--   * a job without the recovery marker (never recovered before) counts, since
--     Redis cannot tell whether the dead process had started it;
--   * a job with the marker (a suspect) counts only if the process recorded it
--     as running (suspects record themselves before they start);
--   * jobs in the landing lists were never handed out: they never count.
--
-- KEYS[1]      owners hash
-- KEYS[2]      the process record (identity); if it exists the process lives
-- KEYS[3]      in-flight hash of the process
-- KEYS[4]      set of the suspects the process was running
-- KEYS[5]      poison hash
-- KEYS[6]      processes set
-- KEYS[7..n]   landing lists of the process
-- ARGV[1]      identity
-- ARGV[2]      recoveries after which a job is a poison pill
-- ARGV[3]      seconds a recovery counter lives after its last increment
-- ARGV[4]      prefix of the recovery counters (a jid completes the key)
-- ARGV[5..]    the queue name of each landing list, in KEYS order
--
-- Returns {recovered, counted, poisoned}, or {-1, 0, 0} when the process is
-- alive and {-2, 0, 0} when its record was already recovered.
local owners, process, inflight, suspects, poison, processes =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local identity = ARGV[1]
local limit = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local counters = ARGV[4]
local marker = '"deckhand_recovered":'

if redis.call('EXISTS', process) == 1 then return {-1, 0, 0} end
if redis.call('HEXISTS', owners, identity) == 0 then return {-2, 0, 0} end

local function jid_of(payload)
  local ok, job = pcall(cjson.decode, payload)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then return job.jid end
  return nil
end

-- Writes the marker (with the count) into a payload known to be a JSON object.
local function mark(payload, count)
  local s, e = string.find(payload, marker, 1, true)
  if s then
    local digits = string.match(payload, '^%d+', e + 1) or ''
    return string.sub(payload, 1, e) .. count .. string.sub(payload, e + 1 + #digits)
  end
  local body = string.match(payload, '^(.*)}%s*$')
  if not body then return payload end
  local sep = string.find(body, '{%s*$') and '' or ','
  return body .. sep .. marker .. count .. '}'
end

local recovered, counted, poisoned = 0, 0, 0

-- Landing lists first, so the jobs taken earliest end up at the very front.
for i = 7, #KEYS do
  local queue = ARGV[i - 2]
  redis.call('SADD', 'queues', queue)
  while redis.call('LMOVE', KEYS[i], 'queue:' .. queue, 'LEFT', 'RIGHT') do
    recovered = recovered + 1
  end
end

local fields = redis.call('HKEYS', inflight)
local function seq(field) return tonumber(string.match(field, '^(%d+)')) or 0 end
table.sort(fields, function(a, b) return seq(a) > seq(b) end)

for _, field in ipairs(fields) do
  local payload = redis.call('HGET', inflight, field)
  local queue = string.match(field, '^%d+:(.*)$') or 'default'
  local suspected = string.find(payload, marker, 1, true) ~= nil
  local jid = nil
  if (not suspected) or redis.call('SISMEMBER', suspects, field) == 1 then jid = jid_of(payload) end
  if jid then
    local key = counters .. jid
    local count = redis.call('INCR', key)
    redis.call('EXPIRE', key, ttl)
    counted = counted + 1
    payload = mark(payload, count)
    if count >= limit then
      redis.call('DEL', key)
      redis.call('HSET', poison, identity .. '|' .. field, payload)
      poisoned = poisoned + 1
      payload = nil
    end
  end
  if payload then
    redis.call('SADD', 'queues', queue)
    redis.call('RPUSH', 'queue:' .. queue, payload)
    recovered = recovered + 1
  end
end

redis.call('DEL', inflight, suspects)
redis.call('HDEL', owners, identity)
redis.call('SREM', processes, identity)
return {recovered, counted, poisoned}
