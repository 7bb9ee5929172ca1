-- Sums the per-class metrics hashes of a period inside Redis, so a dashboard
-- reads a few hundred numbers instead of every field of every hash.
--
-- KEYS         the period's metrics hashes, oldest first (see store/execution_metrics.rb)
--
-- Returns {totals, timelines}:
--   totals     flat field, sum pairs over all the hashes ("<class>|c", "123", ...)
--   timelines  flat class, counts pairs: counts is "n1,n2,..." with one number
--              per hash, the executions of that class in it
local totals, order, timelines, classes = {}, {}, {}, {}
local BAR, C = string.byte('|'), string.byte('c')
for i, key in ipairs(KEYS) do
  local flat = redis.call('HGETALL', key)
  for j = 1, #flat, 2 do
    local field = flat[j]
    local value = tonumber(flat[j + 1]) or 0
    if totals[field] == nil then
      totals[field] = value
      order[#order + 1] = field
    else
      totals[field] = totals[field] + value
    end
    if string.byte(field, -1) == C and string.byte(field, -2) == BAR then -- "<class>|c", no new string
      local class = string.sub(field, 1, -3)
      local line = timelines[class]
      if line == nil then
        line = {}
        for k = 1, #KEYS do line[k] = 0 end
        timelines[class] = line
        classes[#classes + 1] = class
      end
      line[i] = line[i] + value
    end
  end
end

local sums = {}
for _, field in ipairs(order) do
  sums[#sums + 1] = field
  sums[#sums + 1] = string.format('%.17g', totals[field])
end
local lines = {}
for _, class in ipairs(classes) do
  lines[#lines + 1] = class
  lines[#lines + 1] = table.concat(timelines[class], ',')
end
return {sums, lines}
