-- Pushes jobs of one queue, each only if it takes its unique lock, in one
-- atomic step: no job is queued without its lock, no lock is held without
-- its job.
--
-- KEYS[1]       the set of queue names
-- KEYS[2]       the queue
-- KEYS[3]       the schedule set
-- KEYS[3+i]     the lock of job i
-- ARGV[1]       the queue's name
-- ARGV[2..]     per job, 4 entries: jid, lock TTL in ms, score (epoch
--               seconds) when scheduled or "" to enqueue now, payload
--
-- Returns, per job, "" when it was pushed, or the jid holding its lock.
local result, queued = {}, false
for i = 1, #KEYS - 3 do
  local at = 2 + 4 * (i - 1)
  local jid, ttl, score, payload = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  if redis.call('SET', KEYS[3 + i], jid, 'NX', 'PX', ttl) then
    if score == '' then
      redis.call('LPUSH', KEYS[2], payload)
      queued = true
    else
      redis.call('ZADD', KEYS[3], score, payload)
    end
    result[i] = ''
  else
    result[i] = redis.call('GET', KEYS[3 + i]) or ''
  end
end
if queued then redis.call('SADD', KEYS[1], ARGV[1]) end
return result
