-- The mark of a push written as one transaction (Store::MarkedPush). It
-- runs first inside the push's MULTI, so it sees every key as the writes
-- after it will: it lists the keys of another type than the push writes
-- there (Redis refuses those writes with WRONGTYPE and runs the others),
-- and leaves that answer under the mark for as long as a lost reply of the
-- EXEC may be asked about. It writes nothing else: no job passes through it.
--
-- KEYS[1]   the mark
-- KEYS[2..] the keys the push writes
-- ARGV[1]   seconds the mark lives
-- ARGV[2..] the type Deckhand keeps at each of KEYS[2..]
--
-- Returns the mark's value: 'written:' and the positions among KEYS[2..]
-- (1-based, comma-separated) of the keys of another type, none when Redis
-- takes every write.
local refused = {}
for i = 2, #KEYS do
  local found = redis.call('TYPE', KEYS[i]).ok
  if found ~= 'none' and found ~= ARGV[i] then refused[#refused + 1] = i - 1 end
end
local mark = 'written:' .. table.concat(refused, ',')
redis.call('SET', KEYS[1], mark, 'EX', ARGV[1])
return mark
