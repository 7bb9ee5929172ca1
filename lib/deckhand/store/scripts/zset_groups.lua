-- Counts the entries of a sorted set by error class and by job class,
-- examining a bounded number of entries per call so it never stalls Redis.
-- The caller adds up the counts of successive calls.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      rank to start at (lowest score first)
-- ARGV[2]      most entries to examine
--
-- Returns {next rank or -1 at the end, n, error class, count, ... (n pairs),
-- job class, count, ...}. Job classes come prefixed "c:" (from "class") or
-- "w:" (from "wrapped": an Active Job counts under the class it runs), so the
-- caller knows which field to filter on. An entry that is not JSON counts
-- under error class "" and job class "c:".
local key = KEYS[1]
local rank = tonumber(ARGV[1])
local stop = rank + tonumber(ARGV[2])
local chunk = 500
local errors, classes = {}, {}

local function name(value)
  if type(value) == 'string' then return value end
  return ''
end

-- The string value of a top-level key, read straight from compact JSON text
-- when it holds no escape; nil when it is not there or not that simple.
local function field(raw, label)
  local at = 1
  while true do
    local first, last = string.find(raw, label, at, true)
    if not first then return nil end
    local before = string.sub(raw, first - 1, first - 1)
    if before == '{' or before == ',' then
      return string.match(raw, '^([^"\\]*)"', last + 1)
    end
    at = last + 1
  end
end

-- Reads the two names from the text (the usual case, and much faster than
-- decoding); decodes the entry when the text is not that simple.
local function read(raw)
  local class
  if string.find(raw, '"wrapped":', 1, true) then
    class = field(raw, '"wrapped":"')
    if class then class = 'w:' .. class end
  else
    class = field(raw, '"class":"')
    if class then class = 'c:' .. class end
  end
  local err = field(raw, '"error_class":"')
  if class and (err or not string.find(raw, '"error_class":', 1, true)) then return err or '', class end
  local ok, job = pcall(cjson.decode, raw)
  if not ok or type(job) ~= 'table' then return '', 'c:' end
  if name(job['wrapped']) ~= '' then
    class = 'w:' .. job['wrapped']
  else
    class = 'c:' .. name(job['class'])
  end
  return name(job['error_class']), class
end

local function done(next_rank)
  local reply = {next_rank, 0}
  local n = 0
  for k, v in pairs(errors) do
    reply[#reply + 1] = k
    reply[#reply + 1] = v
    n = n + 1
  end
  reply[2] = n
  for k, v in pairs(classes) do
    reply[#reply + 1] = k
    reply[#reply + 1] = v
  end
  return reply
end

while rank < stop do
  local last = math.min(rank + chunk, stop) - 1
  local batch = redis.call('ZRANGE', key, rank, last)
  for i = 1, #batch do
    local err, class = read(batch[i])
    errors[err] = (errors[err] or 0) + 1
    classes[class] = (classes[class] or 0) + 1
  end
  if #batch < last - rank + 1 then
    return done(-1)
  end
  rank = last + 1
end
return done(rank)
