-- Hands in-flight jobs back to the front of their queues (they were next in line)
-- and forgets them, atomically. Used on shutdown for jobs that did not finish.
--
-- KEYS[1]      in-flight hash
-- KEYS[2..n]   landing lists of the same process (drained whole)
-- ARGV[1]      "all" to hand back every field, or "some" for the listed fields
-- ARGV[2..n]   the queue name of each landing list, in KEYS order
-- ARGV[n+1..]  the fields to hand back, when ARGV[1] is "some"
--
-- Returns the number of jobs handed back.
local inflight = KEYS[1]
local landings = #KEYS - 1
local fields = {}
if ARGV[1] == 'all' then
  fields = redis.call('HKEYS', inflight)
else
  for i = 2 + landings, #ARGV do fields[#fields + 1] = ARGV[i] end
end

-- Highest sequence first, so the job taken first ends up at the very front.
local function seq(field) return tonumber(string.match(field, '^(%d+)')) or 0 end
table.sort(fields, function(a, b) return seq(a) > seq(b) end)

-- Landing lists first: their jobs arrived last, so they go behind the others.
local count = 0
for i = 1, landings do
  local queue = ARGV[1 + i]
  while redis.call('LMOVE', KEYS[1 + i], 'queue:' .. queue, 'LEFT', 'RIGHT') do
    count = count + 1
  end
end

for _, field in ipairs(fields) do
  local payload = redis.call('HGET', inflight, field)
  if payload then
    local queue = string.match(field, '^%d+:(.*)$') or 'default'
    redis.call('SADD', 'queues', queue)
    redis.call('RPUSH', 'queue:' .. queue, payload)
    redis.call('HDEL', inflight, field)
    count = count + 1
  end
end

return count
