-- The end of a check of a limiter whose state is a sorted set of places
-- (a window: the checks it let pass, scored by when they passed; a
-- concurrent limiter: its holders, scored by when their locks expire),
-- the places past their time already removed. While fewer than
-- check.size are taken: a place for `member` at `score`, the set kept
-- `ttl` ms. Else: the ms until the earliest place's score plus `after`,
-- noted over on the caller's last try. check holds what limit_note is
-- told: metrics, index, name, now, kind, size, waited (ms, or '') and
-- last (a boolean).
local function limit_place(check, set, member, score, ttl, after)
  if redis.call('ZCARD', set) < check.size then
    redis.call('ZADD', set, score, member)
    redis.call('PEXPIRE', set, ttl)
    limit_note(check.metrics, check.index, check.name, check.now, check.kind, check.size, 'held', check.waited)
    return {1, 0, limit_index_at}
  end
  if check.last then
    limit_note(check.metrics, check.index, check.name, check.now, check.kind, check.size, 'over', check.waited)
  end
  local first = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(first[2]) + after - check.now), limit_index_at}
end
