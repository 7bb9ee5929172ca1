-- Counts the entries of a sorted set that contain a text, examining a bounded
-- number of entries per call so one count never stalls Redis. The caller
-- resumes from the returned rank to count further.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      text to look for (plain, case-sensitive)
-- ARGV[2]      rank to start at
-- ARGV[3]      most entries to examine
-- ARGV[4..]    more texts the entry must also contain
--
-- Returns {next rank to examine or -1 at the end, matches counted}.
local key, needle = KEYS[1], ARGV[1]
local rank = tonumber(ARGV[2])
local stop = rank + tonumber(ARGV[3])
local chunk = 1000
local matches = 0
local matches_all = match_all(needle, ARGV, 4)

while rank < stop do
  local last = math.min(rank + chunk, stop) - 1
  local batch = redis.call('ZRANGE', key, rank, last)
  for i = 1, #batch do
    if matches_all(batch[i]) then
      matches = matches + 1
    end
  end
  if #batch < last - rank + 1 then
    return {-1, matches}
  end
  rank = last + 1
end
return {rank, matches}
