-- Finds entries of a sorted set that contain a text, in rank order, examining a
-- bounded number of entries per call so one search never stalls Redis. The
-- caller resumes from the returned rank to see further matches.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      text to look for (plain, case-sensitive)
-- ARGV[2]      rank to start at (0 is the first entry in the chosen order)
-- ARGV[3]      most matches to return
-- ARGV[4]      most entries to examine
-- ARGV[5]      "rev" for highest score first, anything else for lowest first
-- ARGV[6..]    more texts the entry must also contain (a filter on class AND
--              error AND text)
--
-- Returns {next rank to examine or -1 at the end, rank, entry, score, rank, ...}.
local key, needle = KEYS[1], ARGV[1]
local rank = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local stop = rank + tonumber(ARGV[4])
local rev = ARGV[5] == 'rev'
local chunk = 500
local found = {}
local matches_all = match_all(needle, ARGV, 6)
local matches = 0

while rank < stop do
  local last = math.min(rank + chunk, stop) - 1
  local batch = zset_range(key, rank, last, rev)
  local size = #batch / 2
  for i = 1, #batch, 2 do
    local here = rank + (i - 1) / 2
    if matches_all(batch[i]) then
      found[#found + 1] = here
      found[#found + 1] = batch[i]
      found[#found + 1] = batch[i + 1]
      matches = matches + 1
      if matches >= want then
        table.insert(found, 1, here + 1)
        return found
      end
    end
  end
  if size < last - rank + 1 then
    table.insert(found, 1, -1)
    return found
  end
  rank = last + 1
end
table.insert(found, 1, rank)
return found
