-- Moves entries of the schedule or retry set to the dead set, each only if this
-- call removed it, then trims the dead set by age and size (Sidekiq's rules).
--
-- KEYS[1]      the source sorted set
-- KEYS[2]      the dead set
-- ARGV[1]      now, epoch seconds (the score in the dead set)
-- ARGV[2]      entries scored at or before this are dropped from the dead set
-- ARGV[3]      most entries the dead set keeps
-- ARGV[4..]    the entries to kill, as stored
--
-- Returns the positions (1-based, among the entries given) of those moved, so
-- the caller tells death handlers about these and no others.
local source, dead = KEYS[1], KEYS[2]
local now = ARGV[1]
local killed = {}
for i = 4, #ARGV do
  if redis.call('ZREM', source, ARGV[i]) == 1 then
    redis.call('ZADD', dead, now, ARGV[i])
    killed[#killed + 1] = i - 3
  end
end
redis.call('ZREMRANGEBYSCORE', dead, '-inf', ARGV[2])
redis.call('ZREMRANGEBYRANK', dead, 0, -(tonumber(ARGV[3]) + 1))
return killed
