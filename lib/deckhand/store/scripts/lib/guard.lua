-- Conservation (docs/internals.md): Redis does not roll a script back when a
-- command in it fails, so what it wrote before stays. A script that moves a
-- job therefore checks, before its first write, that every key it will write
-- (or read as a list, set, hash...) holds what Deckhand keeps there or
-- nothing; a key of another type (a user's SET, another application's data)
-- stops it while it has changed nothing.

-- Fails the script, naming the key, unless `key` is of type `want` or absent.
local function guard(key, want)
  local found = redis.call('TYPE', key).ok
  if found ~= 'none' and found ~= want then
    error({err = 'WRONGTYPE Deckhand keeps a ' .. want .. ' at key "' .. key .. '" but it holds a ' .. found ..
      '; nothing was changed'})
  end
end

-- guard() for several keys: {key, type, key, type, ...}.
local function guard_all(checks)
  for i = 1, #checks, 2 do guard(checks[i], checks[i + 1]) end
end
