-- Pushes jobs of one queue, each only if it takes its unique lock, in one
-- atomic step: no job is queued without its lock, no lock is held without
-- its job.
--
-- KEYS[1]       the set of queue names (plain mode only: in cluster mode it
--               lives in another slot, and the caller registers the queue
--               with a command of its own before this script)
-- then          the queue, then the schedule set (the queue's own shard in
--               cluster mode), then the lock of each job (in cluster mode
--               all of the queue's slot)
-- ARGV[1]       the queue's name
-- ARGV[2..]     per job, 4 entries: jid, lock TTL in ms, score (epoch
--               seconds) when scheduled or "" to enqueue now, payload
--
-- Returns, per job, "" when it was pushed, or the jid holding its lock.
local jobs = (#ARGV - 1) / 4
local fixed = #KEYS - jobs
local queues, queue, schedule = nil, KEYS[fixed - 1], KEYS[fixed]
if fixed == 3 then queues = KEYS[1] end
local result, queued = {}, false
-- Every key's type first (lib/guard.lua): a queue of another type would
-- otherwise refuse a job after its lock was taken, or after jobs before it
-- were pushed, and the caller, told the push failed, would push them again.
if queues then guard(queues, 'set') end
guard(queue, 'list')
guard(schedule, 'zset')
for i = 1, jobs do guard(KEYS[fixed + i], 'string') end
for i = 1, jobs do
  local at = 2 + 4 * (i - 1)
  local jid, ttl, score, payload = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local lock = KEYS[fixed + i]
  if redis.call('SET', lock, jid, 'NX', 'PX', ttl) then
    if score == '' then
      redis.call('LPUSH', queue, payload)
      queued = true
    else
      redis.call('ZADD', schedule, score, payload)
    end
    result[i] = ''
  else
    result[i] = redis.call('GET', lock) or ''
  end
end
if queued and queues then redis.call('SADD', queues, ARGV[1]) end
return result
