-- Takes a cancelled job out of the place it waits in (a queue, or the
-- schedule, retry or dead set), for good: it never runs. The record of the
-- cancellation is written before the entry leaves, so no prefix of this
-- script leaves a job that is neither waiting nor recorded; an entry no
-- longer there (the scheduler or a fetch took it a moment earlier) is left
-- alone and nothing is written.
--
-- KEYS[1]  the queue (a list) or sorted set the job waits in
-- KEYS[2]  the record of its cancellation (a string); left out in cluster
--          mode, where it lives in another slot (the caller writes it)
-- KEYS[3]  its cancel mark, removed with it; left out with KEYS[2]
-- ARGV[1]  the job's entry exactly as stored
-- ARGV[2]  the record (JSON)
-- ARGV[3]  the record's life in seconds
--
-- Returns 1 when this call removed the entry, 0 when it was not there.
local source = KEYS[1]
local kind = redis.call('TYPE', source).ok
if kind == 'none' then return 0 end
if kind ~= 'zset' then guard(source, 'list') end
if KEYS[2] then guard_all({KEYS[2], 'string', KEYS[3], 'string'}) end
local there
if kind == 'list' then
  there = redis.call('LPOS', source, ARGV[1])
else
  there = redis.call('ZSCORE', source, ARGV[1])
end
if not there then return 0 end
if KEYS[2] then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
  redis.call('DEL', KEYS[3])
end
if kind == 'list' then
  redis.call('LREM', source, 1, ARGV[1])
else
  redis.call('ZREM', source, ARGV[1])
end
return 1
