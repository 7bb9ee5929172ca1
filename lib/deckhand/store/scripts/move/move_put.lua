-- A queue move's second half, in the new tag's slot (Store::QueueMove):
-- writes a batch move_take.lua held, once: a marker of the batch's id,
-- written with it, makes a second call (its mover died before it released
-- the batch) change nothing. Jobs go to the list's tail, the end fetched
-- first, in the order taken (newest to oldest), so the oldest is the next
-- one fetched; entries keep their scores.
--
-- KEYS[1]  the list or sorted set to write to
-- KEYS[2]  the batch's marker
-- ARGV[1]  "list" or "zset"
-- ARGV[2]  seconds the marker lives
-- ARGV[3..] the batch: jobs, or member and score in turn (as taken)
--
-- Returns how many it wrote (0: written before).
local destination, marker = KEYS[1], KEYS[2]
local kind = ARGV[1]
guard(destination, kind)
guard(marker, 'string')
if redis.call('EXISTS', marker) == 1 then
  return 0
end
local items = {}
if kind == 'list' then
  for i = 3, #ARGV do items[#items + 1] = ARGV[i] end
  redis.call('RPUSH', destination, unpack(items))
else
  for i = 3, #ARGV, 2 do
    items[#items + 1] = ARGV[i + 1]
    items[#items + 1] = ARGV[i]
  end
  redis.call('ZADD', destination, unpack(items))
end
redis.call('SET', marker, '1', 'EX', ARGV[2])
return (kind == 'list') and #items or #items / 2
