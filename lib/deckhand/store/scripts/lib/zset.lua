-- Entries first..last of a sorted set with their scores, flat {member,
-- score, ...}: ranks counted from the lowest score, or from the highest when
-- reverse (the dead set's newest-first order).
local function zset_range(key, first, last, reverse)
  if reverse then
    return redis.call('ZRANGE', key, first, last, 'REV', 'WITHSCORES')
  end
  return redis.call('ZRANGE', key, first, last, 'WITHSCORES')
end

