-- Releases unique locks, each only if the given job holds it: for a job
-- whose lock goes when it starts (unique_until: start), and "release lock"
-- in the dashboard and the data API.
--
-- KEYS[i]   a lock
-- ARGV[i]   the jid that must hold it (or "" to release it whoever holds it)
--
-- Returns how many locks were released.
local released = 0
for i = 1, #KEYS do
  -- A key that is not a string is no lock (lib/unique.lua): left alone.
  local holder = redis.pcall('GET', KEYS[i])
  if type(holder) == 'string' and (ARGV[i] == '' or holder == ARGV[i]) then
    redis.call('DEL', KEYS[i])
    released = released + 1
  end
end
return released
