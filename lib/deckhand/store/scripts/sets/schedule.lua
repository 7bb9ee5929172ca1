-- Moves due entries of one sorted set to their queues (lib/schedule_move.lua,
-- which gives KEYS and ARGV, at = 3), stamping each job that lacks enqueued_at
-- with ARGV[1]: a five's third field is "1" when its entry lacks it.
return schedule_move(3, function(raw, unstamped)
  -- A JSON object ends in '}', perhaps followed by whitespace: the new
  -- field goes last, every byte before it kept.
  local body = unstamped == '1' and string.match(raw, '^(.*)}%s*$')
  if not body then return raw end
  local empty = string.match(body, '{%s*$')
  return body .. (empty and '' or ',') .. '"enqueued_at":' .. ARGV[1] .. '}'
end)
