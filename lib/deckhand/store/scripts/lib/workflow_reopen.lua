-- How a retried step's end is undone down the graph (lib/workflow.lua).

-- Whether cancelled step k may wait again: none of its parents ended in a
-- way its condition refuses, and no one cancelled it by hand (its errors
-- field says so). Returns how many of its parents are open, or nil.
local function wf_revivable(k)
  if wf_get('errors', k) then return nil end
  local cond, open = wf_cond(k), 0
  for _, p in ipairs(wf_list('parents', k)) do
    local s = wf_get('state', p)
    if not WF_ENDED[s] then open = open + 1 elseif not wf_holds(cond, s) then return nil end
  end
  return open
end

-- Step j, which died or was dropped, runs again (retried by hand from the
-- dead set, or its job recovered after a crash): it is open again, and its
-- end undone down the graph. A step still waiting waits for it again; a
-- step its end cancelled waits again when nothing else cancels it, and so
-- on down. A step its end released (on: :failure, :complete) keeps its
-- run: j's next end touches only waiting steps, so none runs twice. A
-- step waiting again counts its open parents afresh, once. A sub-workflow
-- j's end had ended (failed) waits again for its open steps, and what its
-- end cancelled waits again for it.
local function wf_reopen(j)
  wf_move(j, 'r')
  local todo, fresh = {j}, {}
  while #todo > 0 do
    for _, k in ipairs(wf_list('kids', table.remove(todo))) do
      local s = wf_get('state', k)
      if s == 'w' and not fresh[k] then
        wf_set('wait', k, tonumber(wf_get('wait', k)) + 1)
      elseif s == 'c' or (s == 'x' and wf_cond(k) == 'g') then
        local open = wf_revivable(k)
        if open then
          if wf_cond(k) == 'g' then wf_set('state', k, 'w') else wf_move(k, 'w') end
          wf_set('wait', k, open)
          fresh[k], todo[#todo + 1] = true, k
        end
      end
    end
  end
  -- A sub-workflow waiting again counts its open steps once all are
  -- revived: one revived after it (its kid too) would be missed.
  for k in pairs(fresh) do
    if wf_cond(k) == 'g' then wf_set('wait', k, wf_revivable(k)) end
  end
end
