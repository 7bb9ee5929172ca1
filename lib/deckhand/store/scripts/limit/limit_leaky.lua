-- Leaky bucket limiter: holds up to `size` checks and drips them away at
-- `size` per period, so bursts of `size` pass and then one per period/size.
--
-- KEYS[1]  state hash: level (checks in the bucket), at (ms of that level)
-- KEYS[2]  metrics hash       KEYS[3]  the limiters index (plain mode only, see lib/limit.lua)
-- ARGV[1]  name  ARGV[2]  size  ARGV[3]  period (ms)
-- ARGV[4]  ms waited so far ("")   ARGV[5]  "1" on the last try
--
-- Returns {1, 0} when allowed, or {0, ms until one more fits}.
-- Each answer ends with limit_index_at (lib/limit.lua).
local state, name, size, period = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = limit_now()
limit_guard(state, 'hash', KEYS[2], KEYS[3])
local values = redis.call('HMGET', state, 'level', 'at')
local level = tonumber(values[1]) or 0
local at = tonumber(values[2]) or now
level = math.max(0, level - (now - at) * size / period)

if level + 1 <= size then
  redis.call('HSET', state, 'level', tostring(level + 1), 'at', now)
  redis.call('PEXPIRE', state, period + 1000)
  limit_note(KEYS[2], KEYS[3], name, now, 'leaky', size, 'held', ARGV[4])
  return {1, 0, limit_index_at}
end
redis.call('HSET', state, 'level', tostring(level), 'at', now)
if ARGV[5] == '1' then limit_note(KEYS[2], KEYS[3], name, now, 'leaky', size, 'over', ARGV[4]) end
return {0, math.max(1, math.ceil((level + 1 - size) * period / size)), limit_index_at}
