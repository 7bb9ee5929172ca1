-- Writes the outcome of one failed (or rescheduled, or corrupt) job and marks
-- it settled where it sits in the in-flight record, in one atomic step: the
-- job is in the in-flight record until its outcome is in Redis, and never in
-- both once it is. A job of a lot is marked by field "<lot id>:<position>" of
-- its queue's in-flight hash (see lib/lot.lua); a job an idle waiter landed
-- and handed out at once leaves its landing list.
--
-- KEYS[1]      where the job is: the in-flight hash of its queue, or the
--              process's landing list for its queue
-- KEYS[2]      the sorted set the outcome goes to (retry, schedule or dead);
--              absent when the job is dropped (retry: false, discarded)
-- ARGV[1]      "lot" or "landing"
-- ARGV[2]      the lot id, or the job's payload (landing)
-- ARGV[3]      the job's position in its lot, from 0 ("" for landing)
-- ARGV[4]      score (epoch seconds) of the outcome entry
-- ARGV[5]      the outcome entry (the payload to store)
-- ARGV[6]      for the dead set: entries scored at or below this are dropped
-- ARGV[7]      for the dead set: most entries kept
-- ARGV[8]      when the job's unique lock goes with this outcome (it died or
--              was dropped): the jid that holds it, the lock being the last
--              of KEYS; ARGV[4..7] are then "" where they do not apply
--
-- Returns 1, or 0 when the job is no longer there: another process recovered
-- it (this one was taken for dead) and it runs again there, so its outcome
-- here is not written.
local place, kind, id = KEYS[1], ARGV[1], ARGV[2]

if kind == 'lot' then
  if redis.call('HEXISTS', place, id) == 0 then return 0 end
elseif redis.call('LREM', place, 1, id) == 0 then
  return 0
end

if ARGV[8] then unique_release(KEYS[#KEYS], ARGV[8]) end

if ARGV[5] and ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
  if ARGV[6] and ARGV[6] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[7]) + 1))
  end
end

if kind == 'lot' then redis.call('HSET', place, id .. ':' .. ARGV[3], '') end
return 1
