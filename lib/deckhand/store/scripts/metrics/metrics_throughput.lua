-- Adds up every class's executions and failures in each metrics hash of a
-- period, so the dashboard's throughput chart gets two numbers per minute (or
-- hour) instead of every field of every hash.
--
-- KEYS         the period's metrics hashes, oldest first (store/records/execution_metrics.rb)
--
-- Returns one string per hash, "executions,failures" ("0,0" for a hash that
-- is missing: no job ran in that minute, or it expired).
local BAR, C, F = string.byte('|'), string.byte('c'), string.byte('f')
local out = {}
for i, key in ipairs(KEYS) do
  local flat = redis.call('HGETALL', key)
  local runs, failures = 0, 0
  for j = 1, #flat, 2 do
    local field = flat[j]
    if string.byte(field, -2) == BAR then -- "<class>|c" or "<class>|f", no new string
      local kind = string.byte(field, -1)
      if kind == C then runs = runs + (tonumber(flat[j + 1]) or 0)
      elseif kind == F then failures = failures + (tonumber(flat[j + 1]) or 0) end
    end
  end
  out[i] = string.format('%d,%d', runs, failures)
end
return out
