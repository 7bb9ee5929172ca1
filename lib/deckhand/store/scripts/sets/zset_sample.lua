-- The first look of a seek through a sharded set (Store::Sets::Seek) at one
-- shard: its size, and the scores of entries spread evenly over the ranks
-- that can come before the merged rank sought (a shard holds at most that
-- many entries before it).
--
-- KEYS[1]      the sorted set
-- ARGV[1]      "1" to count ranks from the highest score, else from the lowest
-- ARGV[2]      the merged rank sought
-- ARGV[3]      how many entries to sample
-- ARGV[4]      where in its step each sample sits, 0 to 1 (shards staggered)
--
-- Returns {size, "rank score rank score ..."} (scores as Redis prints them,
-- exact; one string costs far less to read than hundreds of values).
local key = KEYS[1]
local reverse = ARGV[1] == '1'
local size = redis.call('ZCARD', key)
local upto = math.min(size, tonumber(ARGV[2]))
local n = math.min(tonumber(ARGV[3]), upto)
local shift = tonumber(ARGV[4])
local samples = {}
local last = -1
for x = 0, n - 1 do
  local rank = math.floor(upto * (x + shift) / n)
  if rank > last and rank < upto then
    last = rank
    local found = zset_range(key, rank, rank, reverse)
    samples[#samples + 1] = rank .. ' ' .. found[2]
  end
end
return {size, table.concat(samples, ' ')}
