-- Pushes jobs of one queue that collapse by key (Deckhand::Collapsing:
-- debounce, dedupe), each with its record, in one atomic step. A record is
-- a hash of the waiting job's "jid" and "payload" (its exact bytes), so a
-- later push of the same key finds that job and replaces it, or leaves it.
--
-- KEYS[1]       the set of queue names (plain mode only, as unique_push.lua)
-- then          the queue, then the schedule set (the queue's own shard in
--               cluster mode), then the record of each job (in cluster mode
--               all of the queue's slot)
-- ARGV[1]       the queue's name
-- ARGV[2..]     per job, 6 entries: its mode, jid, wait (debounce) or
--               window (dedupe) in ms, the record's life in ms, score
--               (epoch seconds) when scheduled or "" to enqueue now, payload
--
-- Modes:
--   debounce  scheduled at Redis' time + wait; an earlier job of the key
--             still in the schedule leaves it
--   replace   pushed; an earlier job of the key still waiting (schedule,
--             else queue) leaves it
--   keep      not pushed while the record lives
--   extend    not pushed while the record lives, and the record lives on
--
-- Returns, per job, two entries: "1" pushed or "0" not, then the jid it
-- replaced (pushed) or the jid of the job waiting in its stead (not
-- pushed), "" for none.
local jobs = (#ARGV - 1) / 6
local fixed = #KEYS - jobs
-- Every key's type first (lib/guard.lua, lib/push.lua): a refusal after a
-- job was written would leave it pushed while its caller is told it was not.
local queues, queue, schedule = push_keys(fixed)
for i = 1, jobs do guard(KEYS[fixed + i], 'hash') end
local now = nil
local result, queued = {}, false
for i = 1, jobs do
  local at = 2 + 6 * (i - 1)
  local mode, jid, span, life, score, payload = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2]), ARGV[at + 3], ARGV[at + 4], ARGV[at + 5]
  local record = KEYS[fixed + i]
  local held = redis.call('HMGET', record, 'jid', 'payload')
  local holder, earlier = held[1], held[2]
  if holder and (mode == 'keep' or mode == 'extend') then
    if mode == 'extend' then redis.call('PEXPIRE', record, life) end
    result[2 * i - 1], result[2 * i] = '0', holder
  else
    if mode == 'debounce' then
      -- Redis' clock, the one the scheduler compares due times with.
      if not now then
        local t = redis.call('TIME')
        now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      end
      score = string.format('%.3f', (now + span) / 1000)
    end
    queued = push_job(queue, schedule, score, payload) or queued
    redis.call('HSET', record, 'jid', jid, 'payload', payload)
    redis.call('PEXPIRE', record, life)
    -- The earlier job leaves only now that its successor is written: a
    -- prefix of this script never leaves the key without a waiting job.
    local gone = 0
    if earlier and earlier ~= payload then
      gone = redis.call('ZREM', schedule, earlier)
      if gone == 0 and mode == 'replace' then gone = redis.call('LREM', queue, 1, earlier) end
    end
    result[2 * i - 1], result[2 * i] = '1', (gone > 0) and holder or ''
  end
end
if queued and queues then redis.call('SADD', queues, ARGV[1]) end
return result
