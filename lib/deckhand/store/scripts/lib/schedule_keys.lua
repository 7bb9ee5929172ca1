-- Key checks of a move of due entries (sets/schedule*.lua), before any write. KEYS[3] (the queues
-- set) is bookkeeping: of another type it is left alone; returns whether it can be written.
local function schedule_guard(q)
  guard(KEYS[1], 'zset')
  guard(KEYS[2], 'zset')
  local listed = true
  if KEYS[4] and KEYS[3] == KEYS[4] then -- cluster mode: the queue itself
    guard(KEYS[3], 'list')
  elseif KEYS[4] then
    local found = redis.call('TYPE', KEYS[3]).ok
    listed = found == 'set' or found == 'none'
  end
  for i = 4, 3 + q do guard(KEYS[i], 'list') end
  for i = 4 + q, #KEYS, 2 do
    guard(KEYS[i], 'zset')
    guard(KEYS[i + 1], 'hash')
  end
  return listed
end
