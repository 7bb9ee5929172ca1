-- Concurrent limiter, release: the holder leaves and one waiter (if any) is
-- woken. The wake list keeps at most `size` entries: a wake nobody took makes
-- the next waiter try once more, never more often.
--
-- KEYS[1]  holders zset       KEYS[2]  wake list
-- ARGV[1]  holder id          ARGV[2]  size
-- ARGV[3]  ms the wake list lives (the lock timeout)
--
-- Returns 1, or 0 when the holder was no longer there (its lock expired).
-- The wake list's type first (lib/guard.lua): a holder gone without its
-- wake would leave a waiter asleep until its timeout.
guard(KEYS[2], 'list')
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], '1')
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
