-- Moves entries of a sorted set (schedule, retry, dead) to their queues, each
-- one atomically: it is pushed only if this call removed it, so an entry the
-- scheduler moved a moment earlier is never queued twice.
--
-- KEYS[1]      the sorted set
-- KEYS[2]      the set of queue names
-- ARGV         groups of four: entry as stored, queue name, queue key, payload
--              to push (the entry with a fresh enqueued_at)
--
-- Returns the number of entries moved.
local set, queues = KEYS[1], KEYS[2]
local moved = 0
for i = 1, #ARGV, 4 do
  if redis.call('ZREM', set, ARGV[i]) == 1 then
    redis.call('SADD', queues, ARGV[i + 1])
    redis.call('LPUSH', ARGV[i + 2], ARGV[i + 3])
    moved = moved + 1
  end
end
return moved
