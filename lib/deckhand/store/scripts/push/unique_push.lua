-- Pushes jobs of one queue, each only if it takes its unique lock, in one
-- atomic step: no job is queued without its lock, no lock is held without
-- its job.
--
-- KEYS[1]       the set of queue names (plain mode only: in cluster mode it
--               lives in another slot, and the caller registers the queue
--               with a command of its own before this script)
-- then          the queue, then the schedule set (the queue's own shard in
--               cluster mode), then the lock of each job (in cluster mode
--               all of the queue's slot), then for a fair queue
--               (docs/fair-queues.md) its tenants' jobs and tenants hash
-- ARGV[1]       the queue's name
-- ARGV[2]       "1" when KEYS end with the fair queue's two keys, else "0"
-- ARGV[3..]     per job, 6 entries: jid, lock TTL in ms, score (epoch
--               seconds) when scheduled or "" to enqueue now, payload, its
--               tenant ("" for none) and the tenant's step (1 / weight)
--
-- A job of a tenant pushed now goes into its tenant's turn (lib/fair.lua).
--
-- Returns, per job, "" when it was pushed, or the jid holding its lock.
local jobs = (#ARGV - 2) / 6
local fair = ARGV[2] == '1'
local fixed = #KEYS - jobs - (fair and 2 or 0)
local fair_jobs, fair_tenants = KEYS[#KEYS - 1], KEYS[#KEYS]
local result, queued = {}, false
-- Every key's type first (lib/guard.lua, lib/push.lua): a key of another
-- type would otherwise refuse a job after its lock was taken.
local queues, queue, schedule = push_keys(fixed)
for i = 1, jobs do guard(KEYS[fixed + i], 'string') end
if fair then
  guard(fair_jobs, 'zset')
  guard(fair_tenants, 'hash')
end
for i = 1, jobs do
  local at = 3 + 6 * (i - 1)
  local jid, ttl, score, payload, tenant = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]
  local lock = KEYS[fixed + i]
  if redis.call('SET', lock, jid, 'NX', 'PX', ttl) then
    if score == '' and fair and tenant ~= '' then
      fair_add(queue, fair_jobs, fair_tenants, tenant, tonumber(ARGV[at + 5]), payload)
      queued = true
    else
      queued = push_job(queue, schedule, score, payload) or queued
    end
    result[i] = ''
  else
    result[i] = redis.call('GET', lock) or ''
  end
end
if queued and queues then redis.call('SADD', queues, ARGV[1]) end
return result
