-- The texts a set search looks for: the first, then any more the entry must
-- also contain (a filter on job class AND error AND text). Plain,
-- case-sensitive substring matches.
--
--   local matches = match_all(ARGV[1], ARGV, 4) -- ARGV[4..] the more texts
--   if matches(raw) then ... end
local function match_all(needle, argv, from)
  local more = {}
  for i = from, #argv do more[#more + 1] = argv[i] end
  return function(raw)
    if not string.find(raw, needle, 1, true) then return false end
    for i = 1, #more do
      if not string.find(raw, more[i], 1, true) then return false end
    end
    return true
  end
end
