-- Finds jobs of a queue's list that contain a text, in the order they will
-- run (jobs are pushed on the left and taken from the right, so position 0
-- is the rightmost), examining a bounded number of entries per call so one
-- search never stalls Redis. The caller resumes from the returned position.
--
-- KEYS[1]      the queue's list
-- ARGV[1]      text to look for (plain, case-sensitive)
-- ARGV[2]      position to start at (0 runs next)
-- ARGV[3]      most matches to return
-- ARGV[4]      most entries to examine
--
-- Returns {next position to examine or -1 at the end, position, entry, ...}.
local key = KEYS[1]
-- LRANGE reads left to right, and the job at position 0 is the rightmost:
-- each read is turned around.
local function read(first, last)
  local batch = redis.call('LRANGE', key, -(last + 1), -(first + 1))
  local ordered = {}
  for i = #batch, 1, -1 do ordered[#ordered + 1] = batch[i] end
  return ordered
end
return scan_bounded(tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), 1, read, match_all(ARGV[1], ARGV, 5))
