-- Reliable fetch: acknowledge settled jobs, then move up to LIMIT jobs from the
-- source lists (in the order to drain them) into the process's in-flight
-- record, one lot per source that had jobs, in one atomic step. A job is never
-- outside Redis' care: it is in its queue, or in a lot of the in-flight record
-- until its bit there says it is settled. Payloads never enter Lua: SORT ...
-- BY nosort DESC LIMIT 0 n STORE copies the queue's n oldest jobs onto the
-- lot's list inside Redis, in RPOP order, and LTRIM drops them from the
-- queue; the caller reads the lots' lists (LRANGE) in the same round trip
-- (Fetch#call). Converting each payload into a Lua string and back, twice,
-- cost more Redis CPU than the move itself.
--
-- KEYS[1..q]            in-flight hash of each of the capsule's queues
-- KEYS[q+1..2q]         recovery counts of each queue (read for their "~v" field)
-- KEYS[2q+1..3q]        the process's landing list for each queue
-- KEYS[3q+1..5q]        each queue's tenants' jobs, then each one's tenants hash (lib/fair.lua)
-- KEYS[5q+1..5q+s]      source lists (queues), in the order to drain them
-- KEYS[5q+s+1..5q+2s]   the lot list each source's jobs go to
-- KEYS[5q+2s+1..]       the lot list of each acknowledgement
-- ARGV[1]               q, the number of queues
-- ARGV[2]               most jobs to take
-- ARGV[3]               s, the number of sources
-- ARGV[4..3+3s]         per source: its queue (1..q; -q: a priority level's
--                       list), the id of its lot, and its share of the
--                       limit (triples): each source first gives up to its
--                       share, in order, then what is left of the limit goes
--                       to the sources in order (weighted queues split it,
--                       Fetch::Sources; a negative share -n is a hard limit
--                       of n, Balance::CappedBuffer)
-- ARGV[4+3s]            a, the number of acknowledgements, then per
--                       acknowledgement: queue (1..q), lot id, the bitmap of
--                       the jobs acknowledged, or "" when every job of the lot
--                       is settled, then m and the m positions settled by a
--                       script (their "<id>:<p>" fields go with the lot)
-- then                  l, the number of landed jobs settled, then l pairs:
--                       queue (1..q), payload (it leaves the landing list)
-- then                  u, the number of unique locks released with these
--                       acknowledgements (jobs that succeeded), then u
--                       pairs: the jid that holds it, its TTL in ms; the
--                       locks are the u KEYS after the acknowledgements'
--                       lot lists (lib/unique.lua)
-- then (only when a queue is throttled, see lib/throttle.lua) the process's
--                       identity, t, then per throttle: queue (1..q), rate
--                       (jobs per ms, 0 none), burst, concurrency (0 none),
--                       slots to give back (jobs settled since the last
--                       call); KEYS[#KEYS-t+1..] are the throttle hashes
--
-- Returns, per source that gave jobs: its index (1..s), the queue's recovery
-- count version (or nil), the number of jobs (its lot's list holds them, in
-- order; the payloads are not in the reply); when a throttle held jobs
-- back, last the ms until it may let one leave (else 0). The caller reads
-- each source's lot list, KEYS[5q+s+j], right after the script, in the same
-- round trip (LRANGE 0 -1): with one queue, one source, one LRANGE.

local q = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local sources = tonumber(ARGV[3])
local lists = 5 * q
local lots = lists + sources

-- A client that resends a command after a dropped connection would run this
-- script twice and take more jobs into lots it already filled: refuse, so
-- the caller reclaims them. One EXISTS names every lot (a priority level's
-- list is a source with a lot of its own): one call, not one per source.
if sources > 0 and redis.call('EXISTS', unpack(KEYS, lots + 1, lots + sources)) > 0 then
  return redis.error_reply('DECKHAND_REPLAYED this fetch already ran')
end

-- Where each part of ARGV starts (lib/fetch_parts.lua).
local acks_at, acks, landed_at, landed, unlocks_at, unlocks, throttles_at = fetch_offsets(sources)

-- Conservation (docs/internals.md): everything that can refuse this script
-- is read or checked before its first write, so a refusal changes nothing
-- and the caller's retry is the same call. The sources' lengths and the
-- recovery count versions are read here for the moves below; each in-flight
-- hash and landing list written below is checked (a key of another type
-- would fail a lot's record after its jobs left their queue); lib/unique.lua
-- leaves a lock key of another type alone.
local lengths, versions, checked, waiting = {}, {}, {}, {}
local function check_hash(queue)
  if not checked[queue] then
    redis.call('HEXISTS', KEYS[queue], '~')
    checked[queue] = true
  end
end
-- Without throttles or shares the moves below stop where the lengths read
-- reach the limit, so those are all the sources they reach: the steps below
-- look no further (a queue's priority levels past them cost no work).
local throttled, shared, found, reached = ARGV[throttles_at] ~= nil, false, 0, 0
for j = 1, sources do shared = shared or tonumber(ARGV[3 + 3 * j]) < limit end
for j = 1, sources do
  if found >= limit and not (throttled or shared) then break end
  reached = j
  -- LLEN refuses a key that is not a list (SORT would copy a set) and skips
  -- an empty queue.
  local queue, own = fetch_source(j)
  lengths[j] = redis.call('LLEN', KEYS[lists + j])
  waiting[j] = own and fair_waiting(KEYS[3 * q + queue], KEYS[4 * q + queue]) or 0 -- a fair queue's tenants' jobs
  found = found + lengths[j] + waiting[j]
  if lengths[j] + waiting[j] > 0 then
    versions[j] = redis.call('HGET', KEYS[q + queue], '~v')
    check_hash(queue)
  end
end
local at = acks_at
for i = 1, acks do
  check_hash(tonumber(ARGV[at]))
  at = at + 4 + tonumber(ARGV[at + 3])
end
for i = 1, landed do redis.call('LLEN', KEYS[2 * q + tonumber(ARGV[landed_at + 2 * i - 1])]) end
if throttled then
  local t = tonumber(ARGV[throttles_at + 1])
  for k = 1, t do redis.call('HEXISTS', KEYS[#KEYS - t + k], '~held') end
end

local held = fair_fill_sources(q, reached, limit, lengths, waiting) -- tenants' jobs onto queues or held (lib/fair.lua)
fetch_acknowledge(acks_at, acks, lots + sources) -- lib/fetch_parts.lua

for i = 1, landed do
  redis.call('LREM', KEYS[2 * q + tonumber(ARGV[landed_at + 2 * i - 1])], 1, ARGV[landed_at + 2 * i])
end

for i = 1, unlocks do
  unique_release_fast(KEYS[lots + sources + acks + i], ARGV[unlocks_at + 2 * i - 1], ARGV[unlocks_at + 2 * i])
end

-- Throttles (absent unless a queue of the capsule is throttled), then how
-- many jobs each source gives (lib/fetch_parts.lua).
local throttles, identity, now = fetch_throttles(throttles_at)
local room, plan = fetch_plan(reached, limit, lengths, throttles, now)
local wait, left = 0, limit
local result, n = {}, 0
for j = 1, reached do
  if left <= 0 then break end
  local queue = fetch_source(j)
  local th, source, count = throttles[queue], KEYS[lists + j], 0
  if plan[j] > 0 or held[j] then count = fair_file(held, j, source, KEYS[lots + j], plan[j]) end
  if th then
    local short = plan[j] == room[j] and room[j] < (lengths[j] or 0) -- the throttle, not the limit, kept jobs back
    wait = throttle_held_back(th, short, count, source, identity, now, wait)
  end
  if count > 0 then
    redis.call('HSET', KEYS[queue], ARGV[2 + 3 * j], count)
    result[n + 1] = j
    result[n + 2] = versions[j]
    result[n + 3] = count
    n = n + 3
    left = left - count
  end
end
fair_release(held, lists)
if identity then result[n + 1] = wait end
return result
