-- A queue move's carry of one debounced or deduplicated key's record
-- (Store::Tags::CollapseRecordMove), in the new tag's slot, once the
-- queue's scheduled set came along: the record names the job the key's
-- last push left waiting, so the next push of the key under the new tag
-- finds it and replaces it (collapse_push.lua). A push under the new tag
-- before the carry (from a process that followed the move first) found no
-- record and left two jobs waiting: of two debounced jobs still in the
-- schedule, the one due last stays, named by the record, and the other
-- leaves, as the push would have done. A dedupe record already under the
-- new tag stays: its window started later.
--
-- KEYS[1]  the key's record under the new tag
-- KEYS[2]  the queue's scheduled set under the new tag
-- ARGV[1]  "debounce" or "dedupe"
-- ARGV[2]  the jid the old record names
-- ARGV[3]  the payload it names (the job's exact bytes)
-- ARGV[4]  ms the old record had left to live (0: no expiry)
--
-- Returns "carried" (the record written), "kept" (the new tag's record
-- stays; a carried job it outlived left the schedule) or "replaced" (the
-- record names the carried job; the other job left the schedule).
local record, schedule = KEYS[1], KEYS[2]
local mode, jid, payload, life = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
guard(record, 'hash')
guard(schedule, 'zset')

local function name_carried()
  redis.call('HSET', record, 'jid', jid, 'payload', payload)
  if life > 0 then redis.call('PEXPIRE', record, life) end
end

local held = redis.call('HMGET', record, 'jid', 'payload')
local other = held[2]
if not held[1] then
  name_carried()
  return 'carried'
end
if other == payload or mode ~= 'debounce' then
  return 'kept'
end
local mine = redis.call('ZSCORE', schedule, payload)
if not mine then
  return 'kept' -- the carried job left the schedule: it is due, or ran
end
local theirs = redis.call('ZSCORE', schedule, other)
if theirs and tonumber(theirs) >= tonumber(mine) then
  redis.call('ZREM', schedule, payload)
  return 'kept'
end
-- The record names the job that stays before the other leaves.
name_carried()
if theirs then redis.call('ZREM', schedule, other) end
return 'replaced'
