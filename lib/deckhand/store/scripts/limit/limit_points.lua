-- Points limiter: a budget of `size` points refilled by `refill` points per
-- period. "take" spends an estimate up front (refused when the budget is
-- short); "adjust" gives back (or spends more of) the difference once the
-- real cost is known. The budget may go below zero when a call cost more
-- than its estimate: later takes wait for the refill.
--
-- KEYS[1]  state hash: points, at (ms of that balance)
-- KEYS[2]  metrics hash       KEYS[3]  the limiters index (plain mode only, see lib/limit.lua)
-- ARGV[1]  name  ARGV[2]  size  ARGV[3]  refill  ARGV[4]  period (ms)
-- ARGV[5]  "take" or "adjust"   ARGV[6]  points to take (or to give back, adjust)
-- ARGV[7]  ms waited so far ("")   ARGV[8]  "1" on the last try
--
-- Returns {1, 0} when taken (or adjusted), or {0, ms until the budget covers it}.
-- Each answer ends with limit_index_at (lib/limit.lua).
local state, name, size = KEYS[1], ARGV[1], tonumber(ARGV[2])
local rate = tonumber(ARGV[3]) / tonumber(ARGV[4]) -- points per ms
local amount = tonumber(ARGV[6])
local now = limit_now()
limit_guard(state, 'hash', KEYS[2], KEYS[3])
local values = redis.call('HMGET', state, 'points', 'at')
local points = tonumber(values[1]) or size
local at = tonumber(values[2]) or now
points = math.min(size, points + (now - at) * rate)
local ttl = math.ceil(size / rate) + 1000

if ARGV[5] == 'adjust' then
  redis.call('HSET', state, 'points', tostring(math.min(size, points + amount)), 'at', now)
  redis.call('PEXPIRE', state, ttl)
  return {1, 0, limit_index_at}
end

if points >= amount then
  redis.call('HSET', state, 'points', tostring(points - amount), 'at', now)
  redis.call('PEXPIRE', state, ttl)
  limit_note(KEYS[2], KEYS[3], name, now, 'points', size, 'held', ARGV[7])
  return {1, 0, limit_index_at}
end
if ARGV[8] == '1' then limit_note(KEYS[2], KEYS[3], name, now, 'points', size, 'over', ARGV[7]) end
return {0, math.max(1, math.ceil((amount - points) / rate)), limit_index_at}
