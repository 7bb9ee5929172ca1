-- Cluster mode's recovery, one queue at a time: one queue's share of a dead
-- process's in-flight record goes back to the front of the queue
-- (lib/recover.lua says how jobs are counted and when one is a poison pill).
-- Every key is of the queue's slot; Scripts::Recover checks the process is
-- still judged dead before, and forgets it after every queue is done. A
-- reaper that dies in between leaves the process an owner: the next one
-- finishes the work (lots already given back are gone).
--
-- KEYS[1..7]  the process's in-flight hash and landing list for the queue,
--             the queue list, the queue's recovery counts, the process's
--             running suspects of it, the queue's poison hash, its throttle hash
-- KEYS[8..]   the process's lot lists for the queue, in id order
-- ARGV[1]     identity
-- ARGV[2]     recoveries after which a job is a poison pill
-- ARGV[3]     seconds the recovery counts live after the last recovery
-- ARGV[4..]   the lot ids, in the order of their lists in KEYS
--
-- Returns {recovered, counted, poisoned}.
local keys = {inflight = KEYS[1], landing = KEYS[2], queue = KEYS[3], counts = KEYS[4], suspects = KEYS[5],
  poison = KEYS[6], throttle = KEYS[7]}
local lots = {}
for n = 4, #ARGV do lots[#lots + 1] = {KEYS[n + 4], ARGV[n]} end
recover_guard(keys, lots)
local recovered, counted, poisoned = recover_queue(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), keys, lots)
return {recovered, counted, poisoned}
