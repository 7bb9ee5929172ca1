-- The scores of a sorted set's entries at some ranks, without the entries:
-- what a seek through a sharded set samples (Store::Sets::Seek). Ranks and
-- scores travel as one string each (far cheaper than hundreds of arguments).
--
-- KEYS[1]      the sorted set
-- ARGV[1]      "1" to count ranks from the highest score, else from the lowest
-- ARGV[2]      ranks separated by spaces
--
-- Returns the scores (as Redis prints them, exact) separated by spaces, one
-- per rank, "-" for a rank past the end.
local key = KEYS[1]
local reverse = ARGV[1] == '1'
local scores = {}
for rank in string.gmatch(ARGV[2], '%S+') do
  local found = zset_range(key, rank, rank, reverse)
  scores[#scores + 1] = found[2] or '-'
end
return table.concat(scores, ' ')
