-- Queue throttles, enforced inside the reliable fetch (fetch.lua) so nothing
-- is taken that cannot start. One hash per throttled queue (Layout::Plain.throttle):
--   t, at        the rate's tokens and when they were counted (ms, Redis' clock)
--   ~held        concurrency slots held across the fleet
--   <identity>   slots held by one process: what recover.lua and
--                requeue.lua give back when its jobs go back to the queue
-- A throttle is a table {key, rate (jobs/ms, 0 none), burst, concurrency (0
-- none), tokens}.

-- Gives back up to `count` slots `identity` holds.
local function throttle_release(key, identity, count)
  if count <= 0 then return end
  local mine = tonumber(redis.call('HGET', key, identity)) or 0
  count = math.min(count, mine)
  if count <= 0 then return end
  if mine == count then redis.call('HDEL', key, identity) else redis.call('HINCRBY', key, identity, -count) end
  redis.call('HINCRBY', key, '~held', -count)
end

-- Every slot `identity` holds (its process stopped or died).
local function throttle_release_all(key, identity)
  throttle_release(key, identity, tonumber(redis.call('HGET', key, identity)) or 0)
end

-- How many of `want` jobs the throttle lets leave now.
local function throttle_room(th, want, now)
  local room = want
  if th.rate > 0 then
    local v = redis.call('HMGET', th.key, 't', 'at')
    local tokens = tonumber(v[1]) or th.burst
    local at = tonumber(v[2]) or now
    th.tokens = math.min(th.burst, tokens + (now - at) * th.rate)
    room = math.min(room, math.floor(th.tokens))
  end
  if th.concurrency > 0 then
    room = math.min(room, th.concurrency - (tonumber(redis.call('HGET', th.key, '~held')) or 0))
  end
  return math.max(room, 0)
end

-- After the pop: spends tokens and takes slots for the `count` jobs that
-- left; returns `wait` lowered to the ms until the throttle may let a job
-- leave, when it held back jobs still in the queue (a freed slot is not
-- announced: look again soon).
local function throttle_held_back(th, short, count, queue, identity, now, wait)
  if count > 0 and th.rate > 0 then
    th.tokens = th.tokens - count
    redis.call('HSET', th.key, 't', tostring(th.tokens), 'at', now)
  end
  if count > 0 and th.concurrency > 0 then
    redis.call('HINCRBY', th.key, identity, count)
    redis.call('HINCRBY', th.key, '~held', count)
  end
  if not (short or count == 0) or redis.call('LLEN', queue) == 0 then return wait end
  local ms = 50
  if th.rate > 0 and th.tokens < 1 then ms = math.max(1, math.ceil((1 - th.tokens) / th.rate)) end
  if wait == 0 or ms < wait then return ms end
  return wait
end
