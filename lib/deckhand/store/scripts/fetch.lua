-- Reliable fetch: acknowledge settled jobs, then move up to LIMIT jobs from the
-- source lists (in the order to drain them) into the process's in-flight
-- record, one lot per source that had jobs, in one atomic step. A job is never
-- outside Redis' care: it is in its queue, or in a lot of the in-flight record
-- until its bit there says it is settled.
--
-- KEYS[1..q]       in-flight hash of each of the capsule's queues
-- KEYS[q+1..2q]    recovery counts of each queue (read for their "~v" field)
-- KEYS[2q+1..]     source lists, in the order to drain them (landing lists, queues)
-- ARGV[1]          q, the number of queues
-- ARGV[2]          most jobs to take
-- ARGV[3]          last lot id this process used; new lots take the next ones
-- ARGV[4]          s, the number of source lists
-- ARGV[5..4+s]     the queue (1..q) of each source list
-- ARGV[5+s]        a, the number of acknowledgements, then a triples:
--                  queue (1..q), lot id, bitmap of settled jobs, or "" when
--                  every job of the lot is settled
--
-- Returns, per source list that gave jobs: queue (1..q), lot id, the queue's
-- recovery count version (or nil), the number of jobs, then the payloads.
local q = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local lot = tonumber(ARGV[3])
local sources = tonumber(ARGV[4])

-- A client that resends a command after a dropped connection would run this
-- script twice with the same lot ids and overwrite the first run's lots:
-- refuse, so the caller reclaims them.
local first = tostring(lot + 1)
for i = 1, q do
  if redis.call('HEXISTS', KEYS[i], first) == 1 then
    return redis.error_reply('DECKHAND_REPLAYED this fetch already ran')
  end
end

local at = 5 + sources
for i = 1, tonumber(ARGV[at]) do
  local hash = KEYS[tonumber(ARGV[at + 3 * i - 2])]
  local id = ARGV[at + 3 * i - 1]
  local bits = ARGV[at + 3 * i]
  if bits == '' then
    redis.call('HDEL', hash, id, id .. '~')
  else
    lot_mark(hash, id .. '~', bits)
  end
end

local result = {}
for j = 1, sources do
  if limit <= 0 then break end
  local jobs = redis.call('RPOP', KEYS[2 * q + j], limit)
  if jobs then
    local queue = tonumber(ARGV[4 + j])
    lot = lot + 1
    redis.call('HSET', KEYS[queue], lot, lot_encode(jobs))
    result[#result + 1] = queue
    result[#result + 1] = lot
    result[#result + 1] = redis.call('HGET', KEYS[q + queue], '~v')
    result[#result + 1] = #jobs
    for _, job in ipairs(jobs) do result[#result + 1] = job end
    limit = limit - #jobs
  end
end
return result
