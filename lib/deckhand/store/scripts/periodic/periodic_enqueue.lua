-- Enqueues one tick of a periodic entry, at most once whoever asks: only the
-- lease's holder may, only while the entry is not paused, and only for a tick
-- later than the last one enqueued (a tick's identity is the entry and its
-- scheduled time; the entry's state keeps the latest, so a second leader, a
-- retry or a late tick finds it done). Also records the leader's next tick.
--
-- Plain mode pushes the job here, in the same atomic step. In cluster mode
-- the queue is in another slot than the lease and the entry ({deckhand}):
-- this script only records the tick, fenced by the lease exactly as in plain
-- mode, with the job to push ("pending_*" fields of the entry's state, and
-- the entry's name in the set of pending pushes), and the caller pushes it
-- with periodic_push.lua (which pushes a tick of an entry once, whoever
-- retries) and then clears the record (periodic_pushed.lua). While a push
-- is pending, the entry takes no new tick: the caller completes it first.
-- The guarantee is the same as plain mode's: each tick enqueued exactly once
-- across leader changes, crashes and retries (docs/cluster.md), provided
-- the queue's push marker (30 days) outlives a pending record left by a
-- crash between the push and its clearing.
--
-- KEYS[1]  the leader's lease
-- KEYS[2]  the entry's state (hash: last_tick, last_jid, last_at, since, paused, next,
--          and in cluster mode pending_queue, pending_tick, pending_jid, pending_payload)
-- plain:   KEYS[3] the set of queue names, KEYS[4] the entry's queue
-- cluster: KEYS[3] the set of entries with a pending push
-- ARGV[1]  the caller's lease token
-- ARGV[2]  the tick (epoch seconds), or 0 to record only `next`
-- ARGV[3]  the next tick after it (epoch seconds)
-- ARGV[4]  now (epoch seconds)
-- ARGV[5]  the queue's name
-- ARGV[6]  the job's jid
-- ARGV[7]  the job's payload
-- ARGV[8]  the entry's name (cluster mode)
--
-- Returns 1 enqueued (cluster mode: recorded, to push), 0 already done (or
-- before the entry existed), -1 not the leader, -2 paused (the tick counts
-- as passed), -3 (cluster mode) a push still pending: complete it, then ask
-- again.
--
-- Every key's type is checked before the first write (lib/guard.lua), so a
-- refusal leaves the tick unrecorded, to be enqueued on the next try.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local state = KEYS[2]
local cluster = #KEYS == 3
guard(state, 'hash')
guard(KEYS[3], 'set')
if not cluster then guard(KEYS[4], 'list') end
if cluster and redis.call('HEXISTS', state, 'pending_jid') == 1 then return -3 end
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
if cluster then
  redis.call('HSET', state, 'pending_queue', ARGV[5], 'pending_tick', ARGV[2], 'pending_jid', ARGV[6],
    'pending_payload', ARGV[7])
  redis.call('SADD', KEYS[3], ARGV[8])
else
  redis.call('SADD', KEYS[3], ARGV[5])
  redis.call('LPUSH', KEYS[4], ARGV[7])
end
redis.call('HSET', state, 'last_tick', ARGV[2], 'last_jid', ARGV[6], 'last_at', ARGV[4])
return 1
