-- Bucket limiter: at most `size` per clock-aligned period (every minute
-- starts at :00), by Redis' clock so every process agrees.
--
-- KEYS[1]  state hash: b (the current bucket number), n (checks in it)
-- KEYS[2]  metrics hash       KEYS[3]  the limiters index (plain mode only, see lib/limit.lua)
-- ARGV[1]  name  ARGV[2]  size  ARGV[3]  period (ms)
-- ARGV[4]  ms waited so far ("")   ARGV[5]  "1" on the last try
--
-- Returns {1, 0} when allowed, or {0, ms until the next bucket}.
-- Each answer ends with limit_index_at (lib/limit.lua).
local state, name, size, period = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = limit_now()
limit_guard(state, 'hash', KEYS[2], KEYS[3])
local bucket = math.floor(now / period)

local values = redis.call('HMGET', state, 'b', 'n')
local n = 0
if tonumber(values[1]) == bucket then n = tonumber(values[2]) or 0 end

if n < size then
  redis.call('HSET', state, 'b', bucket, 'n', n + 1)
  redis.call('PEXPIREAT', state, (bucket + 1) * period + 1000)
  limit_note(KEYS[2], KEYS[3], name, now, 'bucket', size, 'held', ARGV[4])
  return {1, 0, limit_index_at}
end
if ARGV[5] == '1' then limit_note(KEYS[2], KEYS[3], name, now, 'bucket', size, 'over', ARGV[4]) end
return {0, (bucket + 1) * period - now, limit_index_at}
