-- Shared by the limiter scripts: the time in Redis (so every process agrees
-- on it) and the per-limiter metrics, kept beside the limiter's state.
local function limit_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- metrics: hash of counters, living a day after the last check; index: zset
-- name => last use. The first count of its kind describes the limiter and
-- prunes the names unused for a day, so the common check runs three commands.
local function limit_note(metrics, index, name, now, kind, size, field, waited_ms)
  if redis.call('HINCRBY', metrics, field, 1) == 1 then
    redis.call('HSET', metrics, 'type', kind, 'size', size)
    redis.call('ZREMRANGEBYSCORE', index, '-inf', now - 86400000)
  end
  if waited_ms and waited_ms ~= '' then
    redis.call('HINCRBY', metrics, 'waited', 1)
    redis.call('HINCRBY', metrics, 'wait_ms', tonumber(waited_ms))
  end
  redis.call('PEXPIRE', metrics, 86400000)
  redis.call('ZADD', index, now, name)
end
