-- Counts the entries of a sorted set by error class and by job class,
-- examining a bounded number of entries per call so it never stalls Redis.
-- The caller adds up the counts of successive calls.
--
-- KEYS[1]      the sorted set
-- ARGV[1]      rank to start at (lowest score first)
-- ARGV[2]      most entries to examine
--
-- Returns {next rank or -1 at the end, e, c, error class, count, ... (e
-- pairs), job class, count, ... (c pairs), then for each error and job class
-- met together: error class, job class, count, first failed_at, last
-- failed_at}. Job classes come prefixed "c:" (from "class") or "w:" (from
-- "wrapped": an Active Job counts under the class it runs), so the caller
-- knows which field to filter on. An entry that is not JSON counts under error
-- class "" and job class "c:". The failed_at times come back as text (a
-- reply would cut a Lua number to an integer), "" when no entry of the pair
-- has one.
local key = KEYS[1]
local rank = tonumber(ARGV[1])
local stop = rank + tonumber(ARGV[2])
local chunk = 500
local errors, classes, cells = {}, {}, {}

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

-- failed_at when it is a top-level number, else nil. It looks for
-- 'failed_at":' (a rarer first byte than a quote, so the plain search skips
-- faster) and compares bytes rather than cutting strings: this runs once
-- per entry.
local function failed_at(raw)
  local first, last = string.find(raw, 'failed_at":', 2, true)
  while first do
    local before = string.byte(raw, first - 2)
    if string.byte(raw, first - 1) == 34 and (before == 123 or before == 44) then -- '"' after '{' or ','
      local from, to = string.find(raw, '^%-?[%d%.eE%+%-]+', last + 1)
      return from and tonumber(string.sub(raw, from, to))
    end
    first, last = string.find(raw, 'failed_at":', last + 1, true)
  end
  return nil
end

-- cell: {count, first failed_at, last failed_at}
local function seen(err, class, at)
  local row = cells[err]
  if not row then
    row = {}
    cells[err] = row
  end
  local cell = row[class]
  if not cell then
    cell = {0}
    row[class] = cell
  end
  cell[1] = cell[1] + 1
  if at then
    if not cell[2] or at < cell[2] then cell[2] = at end
    if not cell[3] or at > cell[3] then cell[3] = at end
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
  local reply = {next_rank, 0, 0}
  for k, v in pairs(errors) do
    reply[#reply + 1] = k
    reply[#reply + 1] = v
    reply[2] = reply[2] + 1
  end
  for k, v in pairs(classes) do
    reply[#reply + 1] = k
    reply[#reply + 1] = v
    reply[3] = reply[3] + 1
  end
  for err, row in pairs(cells) do
    for class, cell in pairs(row) do
      reply[#reply + 1] = err
      reply[#reply + 1] = class
      reply[#reply + 1] = cell[1]
      reply[#reply + 1] = cell[2] and string.format('%.17g', cell[2]) or ''
      reply[#reply + 1] = cell[3] and string.format('%.17g', cell[3]) or ''
    end
  end
  return reply
end

while rank < stop do
  local last = math.min(rank + chunk, stop) - 1
  local batch = redis.call('ZRANGE', key, rank, last)
  for i = 1, #batch do
    local raw = batch[i]
    local err, class = read(raw)
    errors[err] = (errors[err] or 0) + 1
    classes[class] = (classes[class] or 0) + 1
    seen(err, class, failed_at(raw))
  end
  if #batch < last - rank + 1 then
    return done(-1)
  end
  rank = last + 1
end
return done(rank)
