-- fetch.lua's self-contained parts (used by it alone, after lib/limit.lua
-- and lib/throttle.lua): filing a lot, where each part of its ARGV starts,
-- writing the acknowledgements, its throttles, and how many jobs each
-- source gives. fetch.lua documents
-- the KEYS and ARGV they read.

-- Files up to `take` of the oldest jobs of list `source` on the new list
-- `lot`, oldest first (RPOP order); returns how many. Where SORT is refused
-- (an ACL without @dangerous, a Redis-compatible server without SORT ...
-- STORE) the jobs go through Lua instead: the same lot, more Redis CPU.
local function file_lot(source, lot, take)
  local count = redis.pcall('SORT', source, 'BY', 'nosort', 'LIMIT', 0, take, 'DESC', 'STORE', lot)
  if type(count) == 'number' then
    if count > 0 then redis.call('LTRIM', source, 0, -count - 1) end
    return count
  end
  local jobs = redis.call('RPOP', source, take)
  if not jobs then return 0 end
  redis.call('RPUSH', lot, unpack(jobs))
  return #jobs
end

-- Source j's queue (1..q), and false when it is a priority level's list (-q in ARGV).
local function fetch_source(j)
  local queue = tonumber(ARGV[1 + 3 * j])
  return math.abs(queue), queue > 0
end

-- Where each part of ARGV starts after the s sources' triples, and how many
-- entries it has: the acknowledgements (a, each 4 + m long), the landed jobs
-- (l pairs), the unique locks (u pairs), the throttles (absent: nil there).
-- Returns acks_at, a, landed_at, l, unlocks_at, u, throttles_at.
local function fetch_offsets(sources)
  local acks_at = 5 + 3 * sources
  local acks = tonumber(ARGV[acks_at - 1])
  local landed_at = acks_at
  for _ = 1, acks do landed_at = landed_at + 4 + tonumber(ARGV[landed_at + 3]) end
  local landed = tonumber(ARGV[landed_at])
  local unlocks_at = landed_at + 1 + 2 * landed
  local unlocks = tonumber(ARGV[unlocks_at] or '0')
  return acks_at, acks, landed_at, landed, unlocks_at, unlocks, unlocks_at + 1 + 2 * unlocks
end

-- Writes the a acknowledgements from ARGV[at] on: a lot whose jobs are all
-- settled leaves the in-flight hash with its "<id>:<p>" fields, and its
-- list (KEYS[before + i] for the i-th acknowledgement) goes; otherwise its
-- bitmap is written, if the lot is still there (lib/lot.lua).
local function fetch_acknowledge(at, acks, before)
  for i = 1, acks do
    local hash, id, bits, marked = KEYS[tonumber(ARGV[at])], ARGV[at + 1], ARGV[at + 2], tonumber(ARGV[at + 3])
    if bits == '' then
      local fields = {id, id .. '~'}
      for k = 1, marked do fields[2 + k] = id .. ':' .. ARGV[at + 3 + k] end
      redis.call('DEL', KEYS[before + i])
      redis.call('HDEL', hash, unpack(fields))
    elseif redis.call('HEXISTS', hash, id) == 1 then
      redis.call('HSET', hash, id .. '~', bits)
    end
    at = at + 4 + marked
  end
end

-- The throttles from ARGV[at] on (none when it is absent), each given back
-- the slots of the jobs settled since the last call (lib/throttle.lua).
-- Returns queue (1..q) => throttle, the process's identity (nil without
-- throttles) and Redis' time in ms (0 without throttles).
local function fetch_throttles(at)
  local throttles = {}
  if not ARGV[at] then return throttles, nil, 0 end
  local identity, now = ARGV[at], limit_now()
  local t = tonumber(ARGV[at + 1])
  for k = 1, t do
    local a = at + 2 + 5 * (k - 1)
    local th = {key = KEYS[#KEYS - t + k], rate = tonumber(ARGV[a + 1]), burst = tonumber(ARGV[a + 2]),
      concurrency = tonumber(ARGV[a + 3])}
    throttle_release(th.key, identity, tonumber(ARGV[a + 4]))
    throttles[tonumber(ARGV[a])] = th
  end
  return throttles, identity, now
end

-- How many jobs each source gives: what it holds (lengths[j], cut by its
-- queue's throttle), up to its share while the limit lasts, then what is
-- left of the limit in source order. A negative share -n is a hard limit:
-- n at most, none of the leftover beyond (an auto-balanced capsule's capped
-- queue). Returns room (what each source could give) and plan (what it gives).
local function fetch_plan(sources, limit, lengths, throttles, now)
  local room, plan, left, allowed = {}, {}, limit, {}
  for j = 1, sources do
    local queue = fetch_source(j)
    local th = throttles[queue]
    local share = tonumber(ARGV[3 + 3 * j])
    room[j] = lengths[j] or 0
    if th and room[j] > 0 then -- a queue's sources (its priority levels, its list) share its throttle, in order
      allowed[queue] = allowed[queue] or throttle_room(th, math.huge, now)
      room[j] = math.min(room[j], allowed[queue])
      allowed[queue] = allowed[queue] - room[j]
    end
    if share < 0 then
      share = -share
      room[j] = math.min(room[j], share)
    end
    plan[j] = math.min(share, room[j], left)
    left = left - plan[j]
  end
  for j = 1, sources do
    if left <= 0 then break end
    local more = math.min(left, room[j] - plan[j])
    plan[j] = plan[j] + more
    left = left - more
  end
  return room, plan
end
