-- The move of due entries of one sorted set (schedule or retry) to their
-- queues, shared by sets/schedule.lua and sets/schedule_given.lua: one atomic
-- step per entry, so a job is never out of its set and not yet queued, and
-- an entry another process moved first is skipped. An entry that is not a
-- job goes to the dead set as it is, raw bytes kept. In cluster mode each
-- queue has its own sets, in its slot: an entry for another queue (a
-- retry_queue) cannot move in the same step. It is claimed instead: filed
-- again at a later score, which only one scheduler can do while it is due;
-- that scheduler pushes it and then removes it, and if it dies in between
-- the entry comes due again (at least once, never lost).
--
-- KEYS[1]      the sorted set, scored by epoch seconds
-- KEYS[2]      the dead set
-- KEYS[3]      the queues set; or the (one) queue list itself (cluster mode)
-- KEYS[4..3+q] the lists the entries go to: queues or priority levels' (cluster: the queue's first)
-- KEYS[4+q..]  per fair queue (docs/fair-queues.md) that gets a tenant's job, which goes into
--              its tenant's turn (lib/fair.lua): its tenants' jobs (sorted set) and tenants hash
-- ARGV[at-1]   now, epoch seconds (the dead set's score)
-- ARGV[at]     the number of lists q, then their queues' names, in KEYS order, then per
--              queue the place in KEYS of its tenants' jobs (0 when none names a tenant)
-- then fives:  entry, its list (1..q, 0 for the dead set, -1 to claim it), what
--              payload_of(entry, it) makes the payload of (for a claim: the score to file it
--              at), its tenant ("" for none: it goes onto the queue) and the tenant's step
--
-- Returns {moved, corrupt, unlisted, then the places (1..) of the fives
-- claimed}: unlisted is 1 when the queues set holds another type.

-- Key checks before any write (a wrong type would fail a push after its entry left its set):
-- KEYS[3] is bookkeeping, of another type left alone; returns whether it can be written.
local function schedule_guard(q)
  guard(KEYS[1], 'zset')
  guard(KEYS[2], 'zset')
  local listed = true
  if KEYS[4] and KEYS[3] == KEYS[4] then -- cluster mode: the queue itself
    guard(KEYS[3], 'list')
  elseif KEYS[4] then
    local found = redis.call('TYPE', KEYS[3]).ok
    listed = found == 'set' or found == 'none'
  end
  for i = 4, 3 + q do guard(KEYS[i], 'list') end
  for i = 4 + q, #KEYS, 2 do
    guard(KEYS[i], 'zset')
    guard(KEYS[i + 1], 'hash')
  end
  return listed
end

local function schedule_move(at, payload_of)
  local now, q = ARGV[at - 1], tonumber(ARGV[at])
  local moved, corrupt, claimed = 0, 0, {}
  local listed = schedule_guard(q)
  local first = at + 1 + 2 * q
  for n = first, #ARGV, 5 do
    local raw, list = ARGV[n], tonumber(ARGV[n + 1])
    if list < 0 then
      local score = redis.call('ZSCORE', KEYS[1], raw)
      if score and tonumber(score) <= tonumber(now) then
        redis.call('ZADD', KEYS[1], 'XX', ARGV[n + 2], raw)
        claimed[#claimed + 1] = (n - first) / 5 + 1
      end
    else
      -- Worked out before the entry leaves its set, so nothing can fail in between.
      local payload = list > 0 and payload_of(raw, ARGV[n + 2])
      -- Destination first: the entry leaves its set once written where it goes.
      if redis.call('ZSCORE', KEYS[1], raw) then
        if list == 0 then
          redis.call('ZADD', KEYS[2], now, raw)
          corrupt = corrupt + 1
        else
          local tenant, fair = ARGV[n + 3], tonumber(ARGV[at + q + list])
          if tenant ~= '' and fair > 0 then
            fair_add(KEYS[3 + list], KEYS[fair], KEYS[fair + 1], tenant, tonumber(ARGV[n + 4]), payload)
          else
            redis.call('LPUSH', KEYS[3 + list], payload)
          end
          if listed and KEYS[3] ~= KEYS[4] then redis.call('SADD', KEYS[3], ARGV[at + list]) end -- plain mode
          moved = moved + 1
        end
        redis.call('ZREM', KEYS[1], raw)
      end
    end
  end
  return {moved, corrupt, listed and 0 or 1, unpack(claimed)}
end
