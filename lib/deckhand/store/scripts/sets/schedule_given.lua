-- schedule.lua's move for due entries that client middleware has seen: the
-- caller read each entry, ran the chain on it and gives the payload to
-- write, perhaps changed. Between that read and this step another scheduler
-- may have moved the entry, so each one is looked for first; only while it
-- is still in its set is its payload written where it goes and then the
-- entry removed (never out of both, never pushed twice). An entry that is
-- not a job goes to the dead set as it is, raw bytes kept; in cluster mode
-- one bound for another queue's slot is claimed, as schedule.lua does.
--
-- KEYS as schedule.lua's:
-- KEYS[1]      the sorted set, scored by epoch seconds
-- KEYS[2]      the dead set
-- KEYS[3]      the queues set; or the (one) queue list itself (cluster mode)
-- KEYS[4..3+q] the lists the payloads go to: queues or priority levels'
-- KEYS[4+q..]  per fair queue that gets a tenant's job: its tenants' jobs
--              (sorted set) and tenants hash
-- ARGV[1]      now, epoch seconds (the dead set's score)
-- ARGV[2]      the number of lists q, then their queues' names, in KEYS
--              order, then per queue the place in KEYS of its tenants' jobs
--              (0 when none of its entries names a tenant)
-- ARGV[3+2q..] fives: entry, its list (1..q, 0 for the dead set, -1 to
--              claim it), the payload to write (for a claim: the score to
--              file it at), its tenant ("" for none) and the tenant's step
--
-- Returns {moved, corrupt, unlisted, then the places (1..) of the fives
-- claimed}: unlisted is 1 when the queues set holds another type.
--
-- Every key's type is checked before the first write (lib/schedule_keys.lua).
local now = ARGV[1]
local q = tonumber(ARGV[2])
local moved, corrupt = 0, 0
local claimed = {}
local listed = schedule_guard(q)

for n = 3 + 2 * q, #ARGV, 5 do
  local raw, list = ARGV[n], tonumber(ARGV[n + 1])
  local score = redis.call('ZSCORE', KEYS[1], raw)
  if list < 0 then
    if score and tonumber(score) <= tonumber(now) then
      redis.call('ZADD', KEYS[1], 'XX', ARGV[n + 2], raw)
      claimed[#claimed + 1] = (n - 3 - 2 * q) / 5 + 1
    end
  elseif score then
    -- Destination first: the entry leaves its set once written where it goes.
    if list == 0 then
      redis.call('ZADD', KEYS[2], now, raw)
      corrupt = corrupt + 1
    else
      local payload, tenant, fair = ARGV[n + 2], ARGV[n + 3], tonumber(ARGV[2 + q + list])
      if tenant ~= '' and fair > 0 then
        fair_add(KEYS[3 + list], KEYS[fair], KEYS[fair + 1], tenant, tonumber(ARGV[n + 4]), payload)
      else
        redis.call('LPUSH', KEYS[3 + list], payload)
      end
      if listed and KEYS[3] ~= KEYS[4] then redis.call('SADD', KEYS[3], ARGV[2 + list]) end -- plain mode
      moved = moved + 1
    end
    redis.call('ZREM', KEYS[1], raw)
  end
end
return {moved, corrupt, listed and 0 or 1, unpack(claimed)}
