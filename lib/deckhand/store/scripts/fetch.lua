-- Reliable fetch: acknowledge finished jobs, then move up to LIMIT jobs from the
-- source lists (in priority order) into the process's in-flight hash, in one
-- atomic step. A job is never outside Redis' care: it is either in its queue or
-- in the in-flight hash, until the process acknowledges it.
--
-- KEYS[1]      in-flight hash of this process
-- KEYS[2..n]   source lists, in the order to drain them (landing lists, queues)
-- ARGV[1]      most jobs to take
-- ARGV[2]      last sequence number this process used (fields are "<seq>:<queue>")
-- ARGV[3]      number of acknowledgements that follow
-- ARGV[4..]    acknowledged fields, then one queue name per source list
--
-- Returns a flat array, per source list that gave jobs: queue name, count,
-- then count pairs of field, payload.
local inflight = KEYS[1]
local limit = tonumber(ARGV[1])
local seq = tonumber(ARGV[2])
local acks = tonumber(ARGV[3])

-- A client that resends a command after a dropped connection (redis-client's
-- reconnect_attempts) would run this script twice with the same numbers and
-- overwrite the first run's fields: refuse, so the caller reclaims them.
for i = 2, #KEYS do
  if redis.call('HEXISTS', inflight, (seq + 1) .. ':' .. ARGV[2 + acks + i]) == 1 then
    return redis.error_reply('DECKHAND_REPLAYED this fetch already ran')
  end
end

if acks > 0 then
  redis.call('HDEL', inflight, unpack(ARGV, 4, 3 + acks))
end

local result = {}
local entries = {}
for i = 2, #KEYS do
  if limit <= 0 then break end
  local jobs = redis.call('RPOP', KEYS[i], limit)
  if jobs then
    local name = ARGV[2 + acks + i]
    result[#result + 1] = name
    result[#result + 1] = #jobs
    for _, job in ipairs(jobs) do
      seq = seq + 1
      local field = seq .. ':' .. name
      entries[#entries + 1] = field
      entries[#entries + 1] = job
      result[#result + 1] = field
      result[#result + 1] = job
    end
    limit = limit - #jobs
  end
end

if #entries > 0 then
  redis.call('HSET', inflight, unpack(entries))
end
return result
