-- Counts a sorted set's entries in each of several score ranges at once: how
-- many of a shard's entries come before each sample of a seek through a
-- sharded set (Store::SetSeek).
--
-- KEYS[1]      the sorted set
-- ARGV         min, max, min, max, ... (ZCOUNT's bounds: "(" excludes, -inf/+inf)
--
-- Returns one count per range.
local key = KEYS[1]
local counts = {}
for i = 1, #ARGV, 2 do
  counts[#counts + 1] = redis.call('ZCOUNT', key, ARGV[i], ARGV[i + 1])
end
return counts
