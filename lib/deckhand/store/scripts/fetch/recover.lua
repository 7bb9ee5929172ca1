-- Recovers the in-flight record of a dead process, in one atomic step: every
-- queue's unsettled jobs go back to the front of the queue (lib/recover.lua
-- says how they are counted and when one is a poison pill), then the process
-- leaves the owners hash and the processes set. Plain mode; cluster mode runs
-- recover_queue.lua once per queue instead (Scripts::Recover).
--
-- KEYS[1]        the process record (identity)
-- KEYS[2]        owners hash
-- KEYS[3]        the queues set
-- KEYS[4]        the processes set
-- KEYS[5..4+7q]  per queue, seven keys: the process's in-flight hash and landing
--                list for it, the queue list, the queue's recovery counts, the
--                process's running suspects of it, the queue's poison hash,
--                the queue's throttle hash
-- KEYS[5+7q..]   the process's lot lists, in id order per queue
-- ARGV[1]        identity, then the "beat" field the reaper judged by ("" when
--                the record had expired): if it changed, the process lives
-- ARGV[3]        recoveries after which a job is a poison pill
-- ARGV[4]        seconds the recovery counts live after the last recovery
-- ARGV[5]        q, the number of queues, then their names
-- ARGV[6+q..]    pairs, one per lot list: its queue (1..q), its lot id
--
-- Returns {recovered, counted, poisoned}, or {-1, 0, 0} when the process beat
-- since it was judged and {-2, 0, 0} when its record was already recovered.
local identity, judged = ARGV[1], ARGV[2]
local limit = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local q = tonumber(ARGV[5])
local first_lot = 5 + 7 * q
local pairs_at = 6 + q

if (redis.call('HGET', KEYS[1], 'beat') or '') ~= judged then return {-1, 0, 0} end
if redis.call('HEXISTS', KEYS[2], identity) == 0 then return {-2, 0, 0} end

local lots = {}
for i = 1, q do lots[i] = {} end
for n = pairs_at, #ARGV - 1, 2 do
  local list = lots[tonumber(ARGV[n])]
  list[#list + 1] = {KEYS[first_lot + (n - pairs_at) / 2], ARGV[n + 1]}
end

local function queue_keys(i)
  local base = 5 + 7 * (i - 1)
  return {inflight = KEYS[base], landing = KEYS[base + 1], queue = KEYS[base + 2], counts = KEYS[base + 3],
    suspects = KEYS[base + 4], poison = KEYS[base + 5], throttle = KEYS[base + 6]}
end

-- Every key's type first, so a refusal comes before the first write.
guard_all({KEYS[2], 'hash', KEYS[3], 'set', KEYS[4], 'set'})
for i = 1, q do recover_guard(queue_keys(i), lots[i]) end

local recovered, counted, poisoned = 0, 0, 0
for i = 1, q do
  local r, c, p = recover_queue(identity, limit, ttl, queue_keys(i), lots[i])
  if r > 0 or p > 0 then redis.call('SADD', KEYS[3], ARGV[5 + i]) end -- the name finds the pill's poison hash
  recovered, counted, poisoned = recovered + r, counted + c, poisoned + p
end

redis.call('HDEL', KEYS[2], identity)
redis.call('SREM', KEYS[4], identity)
return {recovered, counted, poisoned}
