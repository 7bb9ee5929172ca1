-- Writes the outcome of one failed (or rescheduled, or corrupt) job and marks
-- it settled where it sits in the in-flight record, in one atomic step: the
-- job is in the in-flight record until its outcome is in Redis, and never in
-- both once it is. A job of a lot is marked by field "<lot id>:<position>" of
-- its queue's in-flight hash (see lib/lot.lua); a job an idle waiter landed
-- and handed out at once leaves its landing list.
--
-- Redis does not roll a script back when a command fails, so this one reads
-- everything first and writes the destination before it touches the source:
-- a refusal (a key of the wrong type, READONLY, OOM) strikes at the first
-- write at the latest, before the job left its place, and the caller simply
-- tries again. A call repeated after its reply was lost finds the job settled
-- and writes nothing.
--
-- KEYS[1]      where the job is: the in-flight hash of its queue, or the
--              process's landing list for its queue
-- KEYS[2]      the sorted set the outcome goes to (retry, schedule, dead, or
--              the held set of the job's paused class);
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
-- Returns 1 when the outcome was written; 2 when the job was already settled
-- (this very outcome, written by a call whose reply was lost); 0 when the
-- job is no longer in this process's in-flight record (it was handed back
-- or recovered, and runs again), so its outcome here is not written.
local place, kind, id = KEYS[1], ARGV[1], ARGV[2]
local set, entry = KEYS[2], ARGV[5]
local writes = entry ~= nil and entry ~= ''

if kind == 'lot' then
  if redis.call('HEXISTS', place, id) == 0 then return 0 end
  if lot_settled_at(place, id, tonumber(ARGV[3])) then return 2 end
elseif not redis.call('LPOS', place, id) then
  if writes and redis.call('ZSCORE', set, entry) then return 2 end
  return 0
end

-- A lock key of another type is no lock of ours: left alone (lib/unique.lua).
local unlock = ARGV[8] and redis.pcall('GET', KEYS[#KEYS]) == ARGV[8]

-- The first write: a set of the wrong type refuses it, and nothing moved.
if writes then
  redis.call('ZADD', set, ARGV[4], entry)
  if ARGV[6] and ARGV[6] ~= '' then
    redis.call('ZREMRANGEBYSCORE', set, '-inf', ARGV[6])
    redis.call('ZREMRANGEBYRANK', set, 0, -(tonumber(ARGV[7]) + 1))
  end
end

if unlock then redis.call('DEL', KEYS[#KEYS]) end

if kind == 'lot' then
  redis.call('HSET', place, id .. ':' .. ARGV[3], '')
else
  redis.call('LREM', place, 1, id)
end
return 1
