-- Shared by the limiter scripts: the time in Redis (so every process agrees
-- on it) and the per-limiter metrics, kept beside the limiter's state.
local function limit_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- What a check answers last: 0, or (cluster mode) the time at which the
-- caller writes the limiter's name into the index itself.
local limit_index_at = 0

-- metrics: hash of counters, living a day after the last check; index: zset
-- name => last use. The first count of its kind describes the limiter and
-- prunes the names unused for a day, so the common check runs three commands.
-- index is nil in cluster mode (it lives in another slot): the name is due
-- there on the limiter's first check, then at most once a minute
-- (limit_index_at, the "indexed" field remembering when).
local function limit_note(metrics, index, name, now, kind, size, field, waited_ms)
  if redis.call('HINCRBY', metrics, field, 1) == 1 then
    redis.call('HSET', metrics, 'type', kind, 'size', size)
    if index then redis.call('ZREMRANGEBYSCORE', index, '-inf', now - 86400000) end
  end
  if waited_ms and waited_ms ~= '' then
    redis.call('HINCRBY', metrics, 'waited', 1)
    redis.call('HINCRBY', metrics, 'wait_ms', tonumber(waited_ms))
  end
  redis.call('PEXPIRE', metrics, 86400000)
  if index then
    redis.call('ZADD', index, now, name)
  elseif now - (tonumber(redis.call('HGET', metrics, 'indexed')) or 0) >= 60000 then
    redis.call('HSET', metrics, 'indexed', now)
    limit_index_at = now
  end
end

-- Checks, before a limiter's first write, the types of the keys limit_note
-- writes after it (lib/guard.lua): a metrics hash of another type would
-- otherwise refuse the note after a slot was taken, and the caller, told the
-- check failed, would never give that slot back.
local function limit_guard(state, state_type, metrics, index)
  guard(state, state_type)
  guard(metrics, 'hash')
  if index then guard(index, 'zset') end
end
