-- Writes the record of one tick of a periodic entry into the entry's
-- history: a list of its last ticks, newest tick first, at most ARGV[3]
-- long, one record (JSON with its "tick") per tick. The leader writes a
-- tick's first record (enqueued, skipped); the server that runs the tick's
-- job writes the next ones (running, succeeded, failed) over it. Either may
-- come first (a job can start before the leader's write arrives), so a first
-- record never replaces one already there.
--
-- KEYS[1]  the entry's history (list)
-- ARGV[1]  the tick (epoch seconds)
-- ARGV[2]  the record (JSON)
-- ARGV[3]  how many ticks the history keeps
-- ARGV[4]  "first": only when the tick has no record yet; "next": over the
--          tick's record, or added when it has none
--
-- Returns 1 written, 0 not (the tick had a record, for "first", or is older
-- than every tick a full history keeps).
guard(KEYS[1], 'list')
local tick = tonumber(ARGV[1])
local cap = tonumber(ARGV[3])
local items = redis.call('LRANGE', KEYS[1], 0, cap - 1)
local function tick_of(raw)
  local ok, record = pcall(cjson.decode, raw)
  if ok and type(record) == 'table' then return tonumber(record.tick) or 0 end
  return 0
end
for i, raw in ipairs(items) do
  local found = tick_of(raw)
  if found == tick then
    if ARGV[4] == 'first' then return 0 end
    redis.call('LSET', KEYS[1], i - 1, ARGV[2])
    return 1
  end
  if found < tick then
    redis.call('LINSERT', KEYS[1], 'BEFORE', raw, ARGV[2])
    redis.call('LTRIM', KEYS[1], 0, cap - 1)
    return 1
  end
end
if #items >= cap then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
return 1
