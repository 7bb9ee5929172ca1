-- Enqueues one tick of a periodic entry, at most once whoever asks: only the
-- lease's holder may, only while the entry is not paused, and only for a tick
-- later than the last one enqueued (a tick's identity is the entry and its
-- scheduled time; the entry's state keeps the latest, so a second leader, a
-- retry or a late tick finds it done). Also records the leader's next tick.
--
-- KEYS[1]  the leader's lease
-- KEYS[2]  the entry's state (hash: last_tick, last_jid, last_at, since, paused, next)
-- KEYS[3]  the set of queue names
-- KEYS[4]  the entry's queue
-- ARGV[1]  the caller's lease token
-- ARGV[2]  the tick (epoch seconds), or 0 to record only `next`
-- ARGV[3]  the next tick after it (epoch seconds)
-- ARGV[4]  now (epoch seconds)
-- ARGV[5]  the queue's name
-- ARGV[6]  the job's jid
-- ARGV[7]  the job's payload
--
-- Returns 1 enqueued, 0 already done (or before the entry existed), -1 not
-- the leader, -2 paused (the tick counts as passed).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local state = KEYS[2]
redis.call('HSET', state, 'next', ARGV[3])
local last = tonumber(redis.call('HGET', state, 'last_tick') or '0')
local since = tonumber(redis.call('HGET', state, 'since') or '')
if not since then
  -- A new entry: ticks from before it was first seen never run.
  redis.call('HSET', state, 'since', ARGV[4])
  return 0
end
local tick = tonumber(ARGV[2])
if tick <= last or tick <= since then return 0 end
if redis.call('HGET', state, 'paused') then
  redis.call('HSET', state, 'since', ARGV[2])
  return -2
end
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('LPUSH', KEYS[4], ARGV[7])
redis.call('HSET', state, 'last_tick', ARGV[2], 'last_jid', ARGV[6], 'last_at', ARGV[4])
return 1
