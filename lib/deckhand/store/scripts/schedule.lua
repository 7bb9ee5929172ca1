-- Moves due jobs from the sorted sets (schedule, retry) to their queues in one
-- atomic step: no window where a job has left the set but is not yet queued.
-- An entry that is not a job (bad JSON, no queue) goes to the dead set as-is,
-- raw bytes kept, so nothing is dropped and nothing crashes.
--
-- KEYS[1..n-1] sorted sets scored by epoch seconds
-- KEYS[n]      the dead set
-- ARGV[1]      now, epoch seconds
-- ARGV[2]      most entries to move from each set
-- ARGV[3]      the enqueued_at value to stamp on jobs that lack one
--
-- Returns {moved, corrupt, earliest score still waiting or false}.
local now = ARGV[1]
local limit = tonumber(ARGV[2])
local stamp = ARGV[3]
local dead = KEYS[#KEYS]
local moved, corrupt = 0, 0
local earliest = false

for i = 1, #KEYS - 1 do
  local set = KEYS[i]
  local due = redis.call('ZRANGE', set, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit)
  if #due > 0 then
    redis.call('ZREM', set, unpack(due))
    for _, raw in ipairs(due) do
      local ok, job = pcall(cjson.decode, raw)
      local queue = ok and type(job) == 'table' and job.queue
      if type(queue) == 'string' and queue ~= '' and job.class ~= nil then
        local payload = raw
        if job.enqueued_at == nil then
          -- A decoded object ends in '}', perhaps followed by whitespace.
          local body = string.match(raw, '^(.*)}%s*$')
          payload = body .. ',"enqueued_at":' .. stamp .. '}'
        end
        redis.call('SADD', 'queues', queue)
        redis.call('LPUSH', 'queue:' .. queue, payload)
        moved = moved + 1
      else
        redis.call('ZADD', dead, now, raw)
        corrupt = corrupt + 1
      end
    end
  end
  local next_entry = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if next_entry[2] then
    local score = tonumber(next_entry[2])
    if not earliest or score < earliest then earliest = score end
  end
end

if earliest then earliest = tostring(earliest) end
return {moved, corrupt, earliest}
