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
local key, needle = KEYS[1], ARGV[1]
local position = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local stop = position + tonumber(ARGV[4])
local chunk = 500
local found = {}
local matches_all = match_all(needle, ARGV, 5)

while position < stop do
  local last = math.min(position + chunk, stop) - 1
  local batch = redis.call('LRANGE', key, -(last + 1), -(position + 1))
  -- LRANGE reads left to right: the entry at `position` is the batch's last.
  for i = #batch, 1, -1 do
    local here = position + (#batch - i)
    if matches_all(batch[i]) then
      found[#found + 1] = here
      found[#found + 1] = batch[i]
      if #found / 2 >= want then
        table.insert(found, 1, here + 1)
        return found
      end
    end
  end
  if #batch < last - position + 1 then
    table.insert(found, 1, -1)
    return found
  end
  position = last + 1
end
table.insert(found, 1, position)
return found
