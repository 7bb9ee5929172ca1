-- Counts a sorted set's entries before each of several score bounds at once:
-- how many of a shard's entries come before each sample of a seek through a
-- sharded set (Store::Sets::Seek). The bounds come in one argument: a seek sends
-- hundreds, and one string costs far less to send than hundreds.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      "1": entries before a bound are those above it (highest score
--              first); else those below it
-- ARGV[2]      bounds separated by spaces, each a score, "(" before it to
--              leave out the entries of that very score
--
-- Returns the counts, one per bound, separated by spaces.
local key = KEYS[1]
local reverse = ARGV[1] == '1'
local counts = {}
for bound in string.gmatch(ARGV[2], '%S+') do
  if reverse then
    counts[#counts + 1] = redis.call('ZCOUNT', key, bound, '+inf')
  else
    counts[#counts + 1] = redis.call('ZCOUNT', key, '-inf', bound)
  end
end
return table.concat(counts, ' ')
