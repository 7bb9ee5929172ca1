-- A bounded search that the caller resumes: examines at most `budget`
-- entries from position `from`, 500 at a time, so one call never stalls
-- Redis, and keeps at most `want` of those `keep(entry)` accepts.
-- read(first, last) answers the entries at positions first..last in the
-- search's order, flat, `width` values each (the entry first: a list's
-- entry, or a sorted set's member and its score); fewer than asked for
-- means the end was reached.
--
-- Returns {next position to examine or -1 at the end, position, values...,
-- position, values..., ...}.
local function scan_bounded(from, want, budget, width, read, keep)
  local position, stop = from, from + budget
  local found, kept = {}, 0
  while position < stop do
    local last = math.min(position + 500, stop) - 1
    local batch = read(position, last)
    for i = 1, #batch, width do
      local here = position + (i - 1) / width
      if keep(batch[i]) then
        found[#found + 1] = here
        for j = i, i + width - 1 do found[#found + 1] = batch[j] end
        kept = kept + 1
        if kept >= want then
          table.insert(found, 1, here + 1)
          return found
        end
      end
    end
    if #batch / width < last - position + 1 then
      table.insert(found, 1, -1)
      return found
    end
    position = last + 1
  end
  table.insert(found, 1, position)
  return found
end
