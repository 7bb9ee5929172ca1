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
local key, rev = KEYS[1], ARGV[5] == 'rev'
local function read(first, last) return zset_range(key, first, last, rev) end
return scan_bounded(tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), 2, read, match_all(ARGV[1], ARGV, 6))
