-- Writes the outcome of one failed (or rescheduled, or corrupt) job and marks
-- it settled in its lot, in one atomic step: the job is in its lot until its
-- outcome is in Redis, and never in both once it is.
--
-- KEYS[1]      the in-flight hash holding the job's lot
-- KEYS[2]      the sorted set the outcome goes to (retry, schedule or dead);
--              absent when the job is dropped (retry: false, discarded)
-- ARGV[1]      lot id
-- ARGV[2]      the job's position in its lot, from 0
-- ARGV[3]      score (epoch seconds) of the outcome entry
-- ARGV[4]      the outcome entry (the payload to store)
-- ARGV[5]      for the dead set: entries scored at or below this are dropped
-- ARGV[6]      for the dead set: most entries kept
--
-- Returns 1, or 0 when the lot is no longer there: another process recovered
-- it (this one was taken for dead) and the job runs again there, so its
-- outcome here is not written.
local inflight = KEYS[1]
local id = ARGV[1]

if redis.call('HEXISTS', inflight, id) == 0 then return 0 end

if KEYS[2] then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
  if ARGV[5] then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[6]) + 1))
  end
end

lot_mark(inflight, id .. '~', lot_bit(tonumber(ARGV[2])))
return 1
