-- A lot: the jobs one fetch took from one queue, kept as one value of the
-- queue's in-flight hash, under the lot's id. The value is the byte lengths
-- of the payloads, comma-separated, a newline, then the payloads end to end
-- (Store::Lot reads and writes the same form in Ruby). Beside it, field
-- "<id>~" holds a bitmap of the jobs already settled: bit p (the (p % 8)th
-- lowest bit of byte p // 8) for the job at position p, counted from 0.

-- The lot value for a list of payloads.
local function lot_encode(jobs)
  local lengths = {}
  for i, job in ipairs(jobs) do lengths[i] = #job end
  return table.concat(lengths, ',') .. '\n' .. table.concat(jobs)
end

-- The payloads of a lot value, in the order they were taken.
local function lot_decode(value)
  local jobs = {}
  local newline = string.find(value, '\n', 1, true)
  if not newline then return jobs end
  local at = newline + 1
  for length in string.gmatch(string.sub(value, 1, newline - 1), '%d+') do
    local n = tonumber(length)
    jobs[#jobs + 1] = string.sub(value, at, at + n - 1)
    at = at + n
  end
  return jobs
end

-- True when the job at `position` (from 0) is marked in `bits`.
local function lot_settled(bits, position)
  if not bits then return false end
  local byte = string.byte(bits, math.floor(position / 8) + 1)
  if not byte then return false end
  return bit.band(byte, bit.lshift(1, position % 8)) ~= 0
end

-- Adds the marks of `bits` to the bitmap kept at `field` of `hash`.
local function lot_mark(hash, field, bits)
  local old = redis.call('HGET', hash, field)
  if not old then
    redis.call('HSET', hash, field, bits)
    return
  end
  local merged = {}
  for i = 1, math.max(#old, #bits) do
    merged[i] = string.char(bit.bor(string.byte(old, i) or 0, string.byte(bits, i) or 0))
  end
  redis.call('HSET', hash, field, table.concat(merged))
end

-- A bitmap with only the job at `position` marked.
local function lot_bit(position)
  local bytes = {}
  local index = math.floor(position / 8) + 1
  for i = 1, index - 1 do bytes[i] = '\0' end
  bytes[index] = string.char(bit.lshift(1, position % 8))
  return table.concat(bytes)
end
