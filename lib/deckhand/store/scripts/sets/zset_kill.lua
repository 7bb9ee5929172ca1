-- Moves entries of the schedule or retry set to the dead set, each only if this
-- call removed it, then trims the dead set by age and size (Sidekiq's rules).
--
-- KEYS[1]      the source sorted set
-- KEYS[2]      the dead set
-- ARGV[1]      now, epoch seconds (the score in the dead set)
-- ARGV[2]      entries scored at or before this are dropped from the dead set
-- ARGV[3]      most entries the dead set keeps
-- ARGV[4]      n, the number of entries
-- ARGV[5..4+n] the entries to kill, as stored
-- ARGV[5+n..4+2n] per entry, the jid holding its unique lock, or "" when it
--              holds none; a death releases the lock
-- KEYS[3..]    the unique lock of each entry that holds one, in order
--
-- Returns the positions (1-based, among the entries given) of those moved, so
-- the caller tells death handlers about these and no others.
--
-- Both sets' types are checked first (lib/guard.lua): a dead set of another
-- type would otherwise refuse the entry after it left its set. A lock key of
-- another type is no lock of ours and is left alone (lib/unique.lua).
local source, dead = KEYS[1], KEYS[2]
local now = ARGV[1]
local n = tonumber(ARGV[4])
local killed, lock = {}, 2
guard(source, 'zset')
guard(dead, 'zset')
for i = 1, n do
  local entry, jid = ARGV[4 + i], ARGV[4 + n + i]
  if jid ~= '' then lock = lock + 1 end
  if redis.call('ZREM', source, entry) == 1 then
    redis.call('ZADD', dead, now, entry)
    if jid ~= '' then unique_release(KEYS[lock], jid) end
    killed[#killed + 1] = i
  end
end
redis.call('ZREMRANGEBYSCORE', dead, '-inf', ARGV[2])
redis.call('ZREMRANGEBYRANK', dead, 0, -(tonumber(ARGV[3]) + 1))
return killed
