-- A queue move's first half for a fair queue's tenants' jobs
-- (lib/fair.lua), in the old tag's slot (Store::QueueMove): takes the
-- lowest-scored jobs off the sorted set, counts them out of their tenants
-- (a tenant with none left leaves the hash, as a fetch does), and holds
-- them in that slot under a batch id with the virtual time they were scored
-- against, until move_fair_put.lua wrote them under the new tag. A batch
-- taken before and not yet put (its mover died) is returned again instead
-- of a new one, so every batch is put once, whoever runs the move next.
-- The tenants hash goes once nothing waits and it holds only the clock:
-- the tag is retired, nothing is left under it.
--
-- KEYS[1]  the tenants' jobs (sorted set)
-- KEYS[2]  the tenants hash
-- KEYS[3]  the batch held: the virtual time, then member and score in turn
-- KEYS[4]  the batch's id
-- ARGV[1]  how many jobs to take at most
-- ARGV[2]  the id of a new batch
--
-- Returns {id, virtual time, member, score, ...}; {} when nothing is left.
local jobs, tenants, held, held_id = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local count, id = tonumber(ARGV[1]), ARGV[2]
guard_all({jobs, 'zset', tenants, 'hash', held, 'list', held_id, 'string'})

local waiting = redis.call('LRANGE', held, 0, -1)
if #waiting > 0 then
  table.insert(waiting, 1, redis.call('GET', held_id))
  return waiting
end

-- The hash of a tag nobody waits under any more: only "~vt" left.
local function forget_clock()
  if redis.call('ZCARD', jobs) == 0 and redis.call('HLEN', tenants) == 1 and redis.call('HEXISTS', tenants, '~vt') == 1 then
    redis.call('DEL', tenants)
  end
end

local items = redis.call('ZRANGE', jobs, 0, count - 1, 'WITHSCORES')
if #items == 0 then
  forget_clock()
  return {}
end
-- Each job's tenant, read before the first write (a member without one
-- stops the script here, having changed nothing).
local left = {}
for i = 1, #items, 2 do
  local cut = string.find(items[i], '\n', 1, true)
  if not cut then
    error({err = 'ERR "' .. jobs .. '" holds a member without a tenant; nothing was changed'})
  end
  local tenant = string.sub(items[i], 1, cut - 1)
  left[tenant] = (left[tenant] or 0) + 1
end
local vt = redis.call('HGET', tenants, '~vt') or '0'
-- The batch is held before it leaves the sorted set.
redis.call('RPUSH', held, vt, unpack(items))
redis.call('SET', held_id, id)
redis.call('ZREMRANGEBYRANK', jobs, 0, #items / 2 - 1)
for tenant, n in pairs(left) do
  if redis.call('HINCRBY', tenants, 'n:' .. tenant, -n) <= 0 then
    redis.call('HDEL', tenants, 'n:' .. tenant, 'f:' .. tenant)
  end
end
forget_clock()
table.insert(items, 1, vt)
table.insert(items, 1, id)
return items
