-- The scores of a run of a sorted set's entries, without the entries: where a
-- page of a sharded set falls among a few hundred entries of each shard is
-- decided by scores and queue names alone (Store::Sets::Merge), and only the
-- page's own entries are read afterwards. The scores travel as one string.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      "1" to count ranks from the highest score, else from the lowest
-- ARGV[2]      first rank
-- ARGV[3]      last rank
--
-- Returns the scores (as Redis prints them, exact) separated by spaces.
local key = KEYS[1]
local found = zset_range(key, ARGV[2], ARGV[3], ARGV[1] == '1')
local scores = {}
for i = 2, #found, 2 do
  scores[#scores + 1] = found[i]
end
return table.concat(scores, ' ')
