-- A lot: the jobs one fetch took from one queue. Its payloads are a list of
-- their own (Layout::Plain.lot), in the order they were taken. The queue's in-flight
-- hash holds, per lot:
--   "<id>"        the lot's size
--   "<id>~"       a bitmap of the jobs the process acknowledged: bit p (the
--                 (p % 8)th lowest bit of byte p // 8) for the job at
--                 position p, counted from 0. Only the fetcher writes it,
--                 whole, each time (Store::LotBits builds the same bitmap).
--   "<id>:<p>"    the job at position p was settled by a script that wrote
--                 its outcome or handed it back (settle.lua, requeue.lua)
-- A job is settled when its bit or its own field says so.

-- The in-flight hash as a table, field => value (one read for a whole lot).
local function lot_fields(hash)
  local flat = redis.call('HGETALL', hash)
  local fields = {}
  for i = 1, #flat, 2 do fields[flat[i]] = flat[i + 1] end
  return fields
end

-- True when bitmap `bits` (or nil) has the bit of `position` set.
local function lot_bit(bits, position)
  local byte = bits and string.byte(bits, math.floor(position / 8) + 1)
  return byte ~= nil and bit.band(byte, bit.lshift(1, position % 8)) ~= 0
end

-- True when the job at `position` (from 0) of lot `id` is settled.
local function lot_settled(fields, id, position)
  return fields[id .. ':' .. position] ~= nil or lot_bit(fields[id .. '~'], position)
end

-- The same, reading only that job's fields of `hash` (a single job's
-- settle needs no HGETALL).
local function lot_settled_at(hash, id, position)
  local own, bits = unpack(redis.call('HMGET', hash, id .. ':' .. position, id .. '~'))
  return own ~= false or lot_bit(bits or nil, position)
end

-- Deletes a lot: its list and its fields in the in-flight hash.
local function lot_forget(hash, fields, lot, id)
  local doomed = {id, id .. '~'}
  local prefix = id .. ':'
  for field in pairs(fields) do
    if string.sub(field, 1, #prefix) == prefix then doomed[#doomed + 1] = field end
  end
  redis.call('DEL', lot)
  redis.call('HDEL', hash, unpack(doomed))
end

-- Pushes the unsettled jobs of a lot to the front of `queue`, the last taken
-- first so the first taken ends up at the very front; forgets the lot.
-- Returns how many went back.
local function lot_hand_back(hash, fields, lot, id, queue)
  local jobs = redis.call('LRANGE', lot, 0, -1)
  local count = 0
  for position = #jobs - 1, 0, -1 do
    if not lot_settled(fields, id, position) then
      redis.call('RPUSH', queue, jobs[position + 1])
      count = count + 1
    end
  end
  lot_forget(hash, fields, lot, id)
  return count
end
