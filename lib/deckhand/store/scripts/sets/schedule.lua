-- Moves due entries of one sorted set (schedule or retry) to their queues,
-- one atomic step per entry: no window where a job has left the set but is
-- not yet queued, and an entry another process moved first is skipped. An
-- entry that is not a job goes to the dead set as it is, raw bytes kept.
--
-- In cluster mode each queue has its own sets, in its slot: an entry for
-- another queue (a retry_queue) cannot move in the same step. It is claimed
-- instead: filed again at a later score, which only one scheduler can do
-- while it is due; that scheduler pushes it and then removes it, and if it
-- dies in between the entry comes due again (at least once, never lost).
--
-- KEYS[1]      the sorted set, scored by epoch seconds
-- KEYS[2]      the dead set
-- KEYS[3]      the queues set; or the (one) queue list itself when the
--              caller names the queue there (cluster mode)
-- KEYS[4..3+q] the lists the entries go to: queues or priority levels' (cluster: the queue's first)
-- KEYS[4+q..]  per fair queue (docs/fair-queues.md) that gets a tenant's
--              job: its tenants' jobs (sorted set) and tenants hash
-- ARGV[1]      the enqueued_at value to stamp on jobs that lack one
-- ARGV[2]      now, epoch seconds (the dead set's score)
-- ARGV[3]      the number of lists q, then their queues' names, in KEYS order,
--              then per queue the place in KEYS of its tenants' jobs (0
--              when none of its entries names a tenant)
-- ARGV[4+2q..] fives: entry, its list (1..q, or 0 for the dead set, or -1
--              to claim it), "1" when it lacks enqueued_at (for a claim:
--              the score to file it at), its tenant ("" for none: it goes
--              onto the queue) and the tenant's step (1 / weight)
--
-- A job of a tenant goes into its tenant's turn (lib/fair.lua), as its
-- push did, not ahead of the other tenants' jobs.
--
-- Returns {moved, corrupt, unlisted, then the places (1..) of the fives
-- claimed}: unlisted is 1 when the queues set holds another type.
--
-- Key types are checked before the first write (lib/schedule_keys.lua): a wrong one
-- would fail the push after the entry left its set, and the job would be nowhere.
local stamp, now, q = ARGV[1], ARGV[2], tonumber(ARGV[3])
local moved, corrupt = 0, 0
local claimed = {}
local listed = schedule_guard(q)

for n = 4 + 2 * q, #ARGV, 5 do
  local raw, queue, unstamped = ARGV[n], tonumber(ARGV[n + 1]), ARGV[n + 2] == '1'
  if queue < 0 then
    local score = redis.call('ZSCORE', KEYS[1], raw)
    if score and tonumber(score) <= tonumber(now) then
      redis.call('ZADD', KEYS[1], 'XX', ARGV[n + 2], raw)
      claimed[#claimed + 1] = (n - 4 - 2 * q) / 5 + 1
    end
  else
    local payload = raw
    if queue > 0 and unstamped then
      -- A JSON object ends in '}', perhaps followed by whitespace: the new
      -- field goes last, every byte before it kept. Worked out before the
      -- entry leaves its set, so nothing here can fail in between.
      local body = string.match(raw, '^(.*)}%s*$')
      if body then
        local empty = string.match(body, '{%s*$')
        payload = body .. (empty and '' or ',') .. '"enqueued_at":' .. stamp .. '}'
      end
    end
    -- Destination first: the entry leaves its set once written where it goes.
    if redis.call('ZSCORE', KEYS[1], raw) then
      if queue == 0 then
        redis.call('ZADD', KEYS[2], now, raw)
        corrupt = corrupt + 1
      else
        local tenant, fair = ARGV[n + 3], tonumber(ARGV[3 + q + queue])
        if tenant ~= '' and fair > 0 then
          fair_add(KEYS[3 + queue], KEYS[fair], KEYS[fair + 1], tenant, tonumber(ARGV[n + 4]), payload)
        else
          redis.call('LPUSH', KEYS[3 + queue], payload)
        end
        if listed and KEYS[3] ~= KEYS[4] then redis.call('SADD', KEYS[3], ARGV[3 + queue]) end -- plain mode
        moved = moved + 1
      end
      redis.call('ZREM', KEYS[1], raw)
    end
  end
end
return {moved, corrupt, listed and 0 or 1, unpack(claimed)}
