-- Concurrent limiter, acquire: at most `size` holders at once across every
-- process. A holder whose lock expired (its process died holding it) is
-- reclaimed first. When every slot is held the caller blocks on the wake
-- list (BLPOP) until a release or the earliest lock expiry, then calls again.
--
-- KEYS[1]  holders: zset holder id => lock expiry (epoch ms)
-- KEYS[2]  metrics hash       KEYS[3]  the limiters index (plain mode only, see lib/limit.lua)
-- ARGV[1]  name               ARGV[2]  size
-- ARGV[3]  holder id          ARGV[4]  lock timeout (ms)
-- ARGV[5]  ms waited so far ("" on a first try)
-- ARGV[6]  "1" when this is the last try (a refusal counts as over the limit)
--
-- Returns {1, 0} when held, or {0, ms until the earliest lock expires}.
-- Each answer ends with limit_index_at (lib/limit.lua).
local holders, name, size = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = limit_now()
limit_guard(holders, 'zset', KEYS[2], KEYS[3])
local lock = tonumber(ARGV[4])

local expired = redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
if expired > 0 then redis.call('HINCRBY', KEYS[2], 'reclaimed', expired) end

local check = {metrics = KEYS[2], index = KEYS[3], name = name, now = now, kind = 'concurrent', size = size,
  waited = ARGV[5], last = ARGV[6] == '1'}
return limit_place(check, holders, ARGV[3], now + lock, lock + 1000, 0)
