-- Moves entries of a sorted set (schedule, retry, dead) to their queues, each
-- one atomically: it is pushed only if this call removed it, so an entry the
-- scheduler moved a moment earlier is never queued twice.
--
-- KEYS[1]        the sorted set
-- KEYS[2..n+1]   the queues the entries go to
-- KEYS[n+2]      the set of queue names, each queue's name added to it; left
--                out in cluster mode, where it lives in another slot (the
--                caller registers the names itself)
-- ARGV[1]        n, how many queues
-- ARGV[2..n+1]   their names, in the order of their keys
-- ARGV[n+2..]    groups of three: entry as stored, its queue's position among
--                the n (1-based), payload to push (the entry with a fresh
--                enqueued_at)
--
-- Returns the number of entries moved.
--
-- Every key's type is checked first (lib/guard.lua): a queue of another type
-- would otherwise refuse the push after the entry left its set.
local set = KEYS[1]
local n = tonumber(ARGV[1])
local queues = KEYS[n + 2]
local moved = 0
guard(set, 'zset')
for i = 2, n + 1 do guard(KEYS[i], 'list') end
if queues then guard(queues, 'set') end
for i = n + 2, #ARGV, 3 do
  if redis.call('ZREM', set, ARGV[i]) == 1 then
    local q = tonumber(ARGV[i + 1])
    if queues then redis.call('SADD', queues, ARGV[1 + q]) end
    redis.call('LPUSH', KEYS[1 + q], ARGV[i + 2])
    moved = moved + 1
  end
end
return moved
