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
local check = {metrics = KEYS[2], index = KEYS[3], name = name, now = now, kind = 'window', size = size,
  waited = ARGV[5], last = ARGV[6] == '1'}
return limit_place(check, window, ARGV[4], now, period + 1000, period)
