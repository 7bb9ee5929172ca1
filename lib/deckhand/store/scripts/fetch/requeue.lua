-- Hands in-flight jobs of one process back to the front of their queues (they
-- were next in line), atomically: each job is in its lot or in its queue,
-- never both, never neither.
--
-- KEYS[1]           the queues set; or the queue list itself when the
--                   caller names the queues there (cluster mode, one queue)
-- KEYS[2..1+3q]     per queue, three keys: the process's in-flight hash and
--                   landing list for it, the queue list
-- KEYS[2+3q..]      lot lists, then the q throttle hashes of the queues
--                   (jobs handed back by "lots" give their slots back; with
--                   "landing" (a stop) every slot of the process goes back)
-- ARGV[1]           what to hand back:
--                   "lots" every unsettled job of the lots given (and with
--                          ARGV[2] "landing", every landing list too); the
--                          lots are forgotten (shutdown, a lost fetch)
--                   "some" the jobs given, marked settled in their lots or
--                          taken out of their landing lists (a capsule
--                          going quiet)
-- ARGV[2]           "landing" to hand back the landing lists, or "-"
-- ARGV[3]           q, the number of queues, then their names
-- ARGV[4+q]         the process's identity (its throttle slots, see lib/throttle.lua)
-- ARGV[5+q..]       for "lots": pairs queue (1..q), lot id, one per lot list;
--                   for "some": the number of landed jobs and pairs queue
--                   (1..q), payload; then per lot: its lot list (1..n, in
--                   KEYS order), queue (1..q), lot id, then a count and the
--                   positions (from 0), the last taken first
--
-- Returns the number of jobs handed back.
local mode = ARGV[1]
local q = tonumber(ARGV[3])
local lots = 1 + 3 * q
local count = 0
local identity = ARGV[4 + q]
local function throttle(i) return KEYS[#KEYS - q + i] end

local function inflight(i) return KEYS[3 * i - 1] end
local function landing(i) return KEYS[3 * i] end
local function queue(i) return KEYS[3 * i + 1] end
local function touched(i)
  if KEYS[1] ~= queue(i) then redis.call('SADD', KEYS[1], ARGV[3 + i]) end
end

-- Redis does not roll a script back when a command fails: every key this
-- script writes is read first, so one of the wrong type refuses the call
-- before anything moved (the jobs stay in flight, the caller tries again).
if KEYS[1] ~= queue(1) then redis.call('SCARD', KEYS[1]) end
for i = 1, q do
  redis.call('HLEN', inflight(i))
  redis.call('LLEN', landing(i))
  redis.call('LLEN', queue(i))
  redis.call('HLEN', throttle(i))
end

-- Landing lists first: their jobs arrived last, so they go behind the others.
if ARGV[2] == 'landing' then
  for i = 1, q do
    while redis.call('LMOVE', landing(i), queue(i), 'LEFT', 'RIGHT') do
      touched(i)
      count = count + 1
    end
  end
end

local list = 5 + q
local fields = {}
local function fields_of(i)
  fields[i] = fields[i] or lot_fields(inflight(i))
  return fields[i]
end

if mode == 'lots' then
  -- Last lot first: lots were taken in id order.
  for n = #ARGV - 1, list, -2 do
    local i = tonumber(ARGV[n])
    local back = lot_hand_back(inflight(i), fields_of(i), KEYS[lots + (n - list) / 2 + 1], ARGV[n + 1], queue(i))
    if back > 0 then touched(i) end
    throttle_release(throttle(i), identity, back)
    count = count + back
  end
else
  -- Landed jobs first: they arrived last, so they go behind the others.
  local landed = tonumber(ARGV[list])
  for k = 1, landed do
    local i, payload = tonumber(ARGV[list + 2 * k - 1]), ARGV[list + 2 * k]
    if redis.call('LPOS', landing(i), payload) then
      redis.call('RPUSH', queue(i), payload)
      redis.call('LREM', landing(i), 1, payload)
      touched(i)
      count = count + 1
    end
  end
  local n = list + 1 + 2 * landed
  while n <= #ARGV do
    local lot, i, id, positions = KEYS[lots + tonumber(ARGV[n])], tonumber(ARGV[n + 1]), ARGV[n + 2], tonumber(ARGV[n + 3])
    local known = fields_of(i)
    for k = 1, positions do
      local position = tonumber(ARGV[n + 3 + k])
      if known[id] and not lot_settled(known, id, position) then
        redis.call('RPUSH', queue(i), redis.call('LINDEX', lot, position))
        redis.call('HSET', inflight(i), id .. ':' .. position, '')
        touched(i)
        count = count + 1
      end
    end
    n = n + 4 + positions
  end
end
if ARGV[2] == 'landing' then
  for i = 1, q do throttle_release_all(throttle(i), identity) end
end
return count
