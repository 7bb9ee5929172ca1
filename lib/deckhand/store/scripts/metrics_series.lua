-- Reads the given fields of each metrics hash of a period and returns only the
-- ones that are set, as one short string per hash: a class's chart needs a
-- handful of its 61 fields per point.
--
-- KEYS         the period's metrics hashes, oldest first
-- ARGV         the fields to read ("<class>|c", "<class>|f", "<class>|ms", "<class>|h0", ...)
--
-- Returns one string per hash: "i=value,i=value,..." where i is the 1-based
-- position of the field in ARGV.
local out = {}
for k, key in ipairs(KEYS) do
  local values = redis.call('HMGET', key, unpack(ARGV))
  local set = {}
  for i, value in ipairs(values) do
    if value then set[#set + 1] = i .. '=' .. value end
  end
  out[k] = table.concat(set, ',')
end
return out
