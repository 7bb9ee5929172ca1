-- A queue move's first half, in the old tag's slot (Store::QueueMove): takes
-- a batch off a list (from its head: the newest jobs, so that each batch,
-- older than the last, goes to the new list's tail, fetched first, in
-- order) or a sorted set (the lowest scores), keeping it in that slot under a batch id until
-- move_put.lua wrote it under the new tag. A batch taken before and not yet
-- put (its mover died) is returned again instead of a new one, so every
-- batch is put once, whoever runs the move next.
--
-- KEYS[1]  the list or sorted set to take from
-- KEYS[2]  the batch held: a list of jobs, or of member and score in turn
-- KEYS[3]  the batch's id
-- ARGV[1]  "list" or "zset"
-- ARGV[2]  how many to take at most
-- ARGV[3]  the id of a new batch
--
-- Returns {id, item, ...}; {} when there is nothing left to take.
local source, held, held_id = KEYS[1], KEYS[2], KEYS[3]
local kind, count, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]
guard(source, kind)
guard(held, 'list')
guard(held_id, 'string')

local waiting = redis.call('LRANGE', held, 0, -1)
if #waiting > 0 then
  table.insert(waiting, 1, redis.call('GET', held_id))
  return waiting
end

local items
if kind == 'list' then
  items = redis.call('LRANGE', source, 0, count - 1)
else
  items = redis.call('ZRANGE', source, 0, count - 1, 'WITHSCORES')
end
if #items == 0 then
  return {}
end
-- The batch is held before it leaves its list or set.
redis.call('RPUSH', held, unpack(items))
redis.call('SET', held_id, id)
if kind == 'list' then
  redis.call('LTRIM', source, #items, -1)
else
  local members = {}
  for i = 1, #items, 2 do members[#members + 1] = items[i] end
  redis.call('ZREM', source, unpack(members))
end
table.insert(items, 1, id)
return items
