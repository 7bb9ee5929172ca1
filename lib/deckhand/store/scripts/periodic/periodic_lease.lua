-- The periodic leader's lease: one holder at a time, named by a fenced
-- token ("<fence number>:<identity>", the number drawn from a counter that
-- only grows), so a holder that lost its lease can never act on a newer one.
--
-- KEYS[1]  the lease (string: the holder's token, with a TTL)
-- KEYS[2]  the fence counter
-- ARGV[1]  acquire | renew | release
-- ARGV[2]  acquire: this process's identity; renew, release: its token
-- ARGV[3]  the lease's time to live, milliseconds
--
-- Returns {1, token} when the caller holds (held) the lease, else {0, holder}.
local holder = redis.call('GET', KEYS[1])
local op = ARGV[1]
if op == 'acquire' then
  if holder then return {0, holder} end
  local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[2]
  redis.call('SET', KEYS[1], token, 'NX', 'PX', ARGV[3])
  return {1, token}
end
if holder ~= ARGV[2] then return {0, holder} end
if op == 'renew' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return {1, holder}
