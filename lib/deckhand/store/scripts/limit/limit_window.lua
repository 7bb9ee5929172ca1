-- Window limiter: at most `size` in any sliding period, by Redis' clock.
--
-- KEYS[1]  zset: check id => when it passed (ms)
-- KEYS[2]  metrics hash       KEYS[3]  the limiters index (plain mode only, see lib/limit.lua)
-- ARGV[1]  name  ARGV[2]  size  ARGV[3]  period (ms)  ARGV[4]  check id
-- ARGV[5]  ms waited so far ("")   ARGV[6]  "1" on the last try
--
-- Returns {1, 0} when allowed, or {0, ms until the oldest check leaves the window}.
-- Each answer ends with limit_index_at (lib/limit.lua).
local window, name, size, period = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = limit_now()
limit_guard(window, 'zset', KEYS[2], KEYS[3])

redis.call('ZREMRANGEBYSCORE', window, '-inf', now - period)
if redis.call('ZCARD', window) < size then
  redis.call('ZADD', window, now, ARGV[4])
  redis.call('PEXPIRE', window, period + 1000)
  limit_note(KEYS[2], KEYS[3], name, now, 'window', size, 'held', ARGV[5])
  return {1, 0, limit_index_at}
end
if ARGV[6] == '1' then limit_note(KEYS[2], KEYS[3], name, now, 'window', size, 'over', ARGV[5]) end
local oldest = redis.call('ZRANGE', window, 0, 0, 'WITHSCORES')
return {0, math.max(1, tonumber(oldest[2]) + period - now), limit_index_at}
