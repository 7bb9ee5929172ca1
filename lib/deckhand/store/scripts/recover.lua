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
--   * jobs in the landing lists count the same way: an idle process hands a
--     landed job straight to a thread.
--
-- KEYS[1]        the process record (identity)
-- KEYS[2]        owners hash
-- KEYS[3]        the queues set
-- KEYS[4]        the processes set
-- KEYS[5..4+6q]  per queue, six keys: the process's in-flight hash and landing
--                list for it, the queue list, the queue's recovery counts, the
--                process's running suspects of it, the queue's poison hash
-- KEYS[5+6q..]   the process's lot lists, in id order per queue, then the
--                q throttle hashes of the queues: the process's slots go back
-- ARGV[1]        identity, then the "beat" field the reaper judged by ("" when
--                the record had expired): if it changed, the process lives
-- ARGV[3]        recoveries after which a job is a poison pill
-- ARGV[4]        seconds the recovery counts live after the last recovery
-- ARGV[5]        q, the number of queues, then their names
-- ARGV[6+q..]    pairs, one per lot list: its queue (1..q), its lot id
--
-- Returns {recovered, counted, poisoned}, or {-1, 0, 0} when the process beat
-- since it was judged and {-2, 0, 0} when its record was already recovered.
local identity, judged = ARGV[1], ARGV[2]
local limit = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local q = tonumber(ARGV[5])
local first_lot = 5 + 6 * q
local pairs_at = 6 + q
local throttles = #KEYS - q

if (redis.call('HGET', KEYS[1], 'beat') or '') ~= judged then return {-1, 0, 0} end
if redis.call('HEXISTS', KEYS[2], identity) == 0 then return {-2, 0, 0} end

local function jid_of(payload)
  local ok, job = pcall(cjson.decode, payload)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then return job.jid end
  return nil
end

local recovered, counted, poisoned = 0, 0, 0

for i = 1, q do
  local base = 5 + 6 * (i - 1)
  local inflight, landing, queue = KEYS[base], KEYS[base + 1], KEYS[base + 2]
  local counts, suspects, poison = KEYS[base + 3], KEYS[base + 4], KEYS[base + 5]
  local before, bumped = recovered, false

  -- Back to the front of the queue, counted by the rule above.
  local function give_back(payload)
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
        return
      end
    end
    redis.call('RPUSH', queue, payload)
    recovered = recovered + 1
  end

  -- Landing lists first (newest on their left), so the jobs taken earliest
  -- end up at the very front.
  for _, payload in ipairs(redis.call('LRANGE', landing, 0, -1)) do give_back(payload) end
  redis.call('DEL', landing)

  -- Lots last taken first, jobs last taken first.
  local fields = lot_fields(inflight)
  for n = #ARGV - 1, pairs_at, -2 do
    if tonumber(ARGV[n]) == i then
      local lot, id = KEYS[first_lot + (n - pairs_at) / 2], ARGV[n + 1]
      local jobs = redis.call('LRANGE', lot, 0, -1)
      for position = #jobs - 1, 0, -1 do
        if not lot_settled(fields, id, position) then give_back(jobs[position + 1]) end
      end
      lot_forget(inflight, fields, lot, id)
    end
  end

  if bumped then
    redis.call('HINCRBY', counts, '~v', 1)
    redis.call('EXPIRE', counts, ttl)
  end
  if recovered > before then redis.call('SADD', KEYS[3], ARGV[5 + i]) end
  redis.call('DEL', suspects)
  throttle_release_all(KEYS[throttles + i], identity)
end

redis.call('HDEL', KEYS[2], identity)
redis.call('SREM', KEYS[4], identity)
return {recovered, counted, poisoned}
