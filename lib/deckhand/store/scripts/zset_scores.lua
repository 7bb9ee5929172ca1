-- The scores of a sorted set's entries at some ranks, without the entries:
-- what a seek through a sharded set samples (Store::SetSeek).
--
-- KEYS[1]      the sorted set
-- ARGV[1]      "1" to count ranks from the highest score, else from the lowest
-- ARGV[2..]    ranks
--
-- Returns one score per rank (as Redis prints it, exact), nil past the end.
local key = KEYS[1]
local reverse = ARGV[1] == '1'
local scores = {}
for i = 2, #ARGV do
  local rank = tonumber(ARGV[i])
  local found
  if reverse then
    found = redis.call('ZRANGE', key, rank, rank, 'REV', 'WITHSCORES')
  else
    found = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
  end
  scores[i - 1] = found[2] or false
end
return scores
