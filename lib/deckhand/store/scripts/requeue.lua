-- Hands in-flight jobs of one process back to the front of their queues (they
-- were next in line), atomically: each job is in its lot or in its queue,
-- never both, never neither.
--
-- KEYS[1]           the queues set
-- KEYS[2..]         per queue, three keys: its in-flight hash, the process's
--                   landing list for it, the queue list
-- ARGV[1]           what to hand back:
--                   "all"  every unsettled job of every lot and every landing
--                          list; the in-flight hashes are deleted (shutdown)
--                   "some" the jobs listed, marked settled in their lots, and
--                          every landing list (a capsule going quiet)
--                   "lots" the unsettled jobs of the lots listed, which are
--                          deleted (a fetch whose reply was lost)
-- ARGV[2]           the number of queues, then their names
-- ARGV[3+q..]       for "some": triples queue (1..q), lot id, position (from 0),
--                   the last taken first;
--                   for "lots": pairs queue (1..q), lot id
--
-- Returns the number of jobs handed back.
local mode = ARGV[1]
local q = tonumber(ARGV[2])
local count = 0

local function inflight(i) return KEYS[3 * i - 1] end
local function landing(i) return KEYS[3 * i] end
local function queue(i) return KEYS[3 * i + 1] end

local function push(i, payload)
  redis.call('RPUSH', queue(i), payload)
  redis.call('SADD', KEYS[1], ARGV[2 + i])
  count = count + 1
end

-- Landing lists first: their jobs arrived last, so they go behind the others.
if mode ~= 'lots' then
  for i = 1, q do
    while redis.call('LMOVE', landing(i), queue(i), 'LEFT', 'RIGHT') do
      redis.call('SADD', KEYS[1], ARGV[2 + i])
      count = count + 1
    end
  end
end

-- Pushes the unsettled jobs of a lot, last taken first, so the first taken
-- ends up at the very front.
local function hand_back_lot(i, id)
  local value = redis.call('HGET', inflight(i), id)
  if not value then return end
  local bits = redis.call('HGET', inflight(i), id .. '~')
  local jobs = lot_decode(value)
  for position = #jobs - 1, 0, -1 do
    if not lot_settled(bits, position) then push(i, jobs[position + 1]) end
  end
end

local function lot_ids(hash)
  local ids = {}
  for _, field in ipairs(redis.call('HKEYS', hash)) do
    local id = tonumber(field)
    if id then ids[#ids + 1] = id end
  end
  table.sort(ids, function(a, b) return a > b end)
  return ids
end

local list = 3 + q
if mode == 'all' then
  for i = 1, q do
    for _, id in ipairs(lot_ids(inflight(i))) do hand_back_lot(i, tostring(id)) end
    redis.call('DEL', inflight(i))
  end
elseif mode == 'lots' then
  for n = list, #ARGV, 2 do
    local i = tonumber(ARGV[n])
    hand_back_lot(i, ARGV[n + 1])
    redis.call('HDEL', inflight(i), ARGV[n + 1], ARGV[n + 1] .. '~')
  end
else
  local lots = {}
  for n = list, #ARGV, 3 do
    local i, id, position = tonumber(ARGV[n]), ARGV[n + 1], tonumber(ARGV[n + 2])
    local key = i .. ':' .. id
    if lots[key] == nil then
      local value = redis.call('HGET', inflight(i), id)
      lots[key] = value and lot_decode(value) or false
    end
    local jobs = lots[key]
    if jobs and not lot_settled(redis.call('HGET', inflight(i), id .. '~'), position) then
      push(i, jobs[position + 1])
      lot_mark(inflight(i), id .. '~', lot_bit(position))
    end
  end
end
return count
