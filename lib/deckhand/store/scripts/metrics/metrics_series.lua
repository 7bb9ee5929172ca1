-- Reads the given fields of each metrics hash of a period and returns only the
-- ones that are set, as one short string per hash: a class's chart needs a
-- handful of its fields per point. Fields read only on a condition (the
-- failures' histogram bucket i, read only where the hash counts failures and
-- executions in bucket i) cost nothing where the condition does not hold.
--
-- KEYS         the period's metrics hashes, oldest first
-- ARGV         n, then n fields always read ("<class>|c", "<class>|f", ...),
--              then the position (1..n) of the gate field, 0 for none, then
--              pairs: the position (1..n) of a guard field and a field read
--              only when the gate and its guard are both set
--
-- Returns one string per hash: "i=value,i=value,..." where i is the 1-based
-- position of the field: 1..n for the fields always read, n + j for the
-- j-th guarded one.
local n = tonumber(ARGV[1])
local base = {unpack(ARGV, 2, n + 1)}
local gate = tonumber(ARGV[n + 2]) or 0
local guarded = {}
for i = n + 3, #ARGV - 1, 2 do
  guarded[#guarded + 1] = {tonumber(ARGV[i]), ARGV[i + 1]}
end

local out = {}
for k, key in ipairs(KEYS) do
  local values = redis.call('HMGET', key, unpack(base))
  local set = {}
  for i = 1, n do
    if values[i] then set[#set + 1] = i .. '=' .. values[i] end
  end
  if gate > 0 and values[gate] and #guarded > 0 then
    local fields, positions = {}, {}
    for j, pair in ipairs(guarded) do
      if values[pair[1]] then
        fields[#fields + 1] = pair[2]
        positions[#positions + 1] = n + j
      end
    end
    if #fields > 0 then
      local more = redis.call('HMGET', key, unpack(fields))
      for j = 1, #fields do
        if more[j] then set[#set + 1] = positions[j] .. '=' .. more[j] end
      end
    end
  end
  out[k] = table.concat(set, ',')
end
return out
