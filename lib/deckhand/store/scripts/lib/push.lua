-- What the pushes of jobs with a key of their own (push/unique_push.lua,
-- push/collapse_push.lua) share: their first keys, the set of queue names
-- (plain mode only: in cluster mode it lives in another slot, and the caller
-- names the queue there with a command of its own first), the queue and its
-- schedule set, the last at KEYS[fixed]; and how a job is written there.

-- The set of queue names (nil in cluster mode), the queue and the schedule
-- set, each checked before any write (lib/guard.lua): a key of another type
-- would refuse a job after the jobs before it were written, and the caller,
-- told the push failed, would push them again.
local function push_keys(fixed)
  local queues, queue, schedule = nil, KEYS[fixed - 1], KEYS[fixed]
  if fixed == 3 then queues = KEYS[1] end
  if queues then guard(queues, 'set') end
  guard(queue, 'list')
  guard(schedule, 'zset')
  return queues, queue, schedule
end

-- Writes a job onto its queue now (score ''), else into the schedule set at
-- its score (epoch seconds); true when it went onto the queue.
local function push_job(queue, schedule, score, payload)
  if score == '' then
    redis.call('LPUSH', queue, payload)
    return true
  end
  redis.call('ZADD', schedule, score, payload)
  return false
end
