-- How an end travels down the graph (lib/workflow.lua).

-- How sub-workflow g ended, once every step in it ended: failed (x) when
-- one failed or died, else cancelled when one was, else succeeded. Read
-- once per sub-workflow, when its last step ends.
local function wf_group_end(g)
  local cancelled = false
  for _, p in ipairs(wf_list('parents', g)) do
    local s = wf_get('state', p)
    if s == 'x' or s == 'd' then return 'x' end
    cancelled = cancelled or s == 'c'
  end
  return cancelled and 'c' or 's'
end

-- Ends step j as `s`. A step waiting for it is released once it waits for
-- nothing more, or cancelled (and its own waiting steps after it) as soon as
-- its condition cannot hold. Each step is released at most once: only a
-- waiting step (w) is touched, and it leaves w as it is released or
-- cancelled. A sub-workflow is never released: it ends as its last step
-- ends, and its end travels on. O(1) work per step waiting on an end, or
-- cancelled.
local function wf_finish(j, s)
  wf_move(j, s)
  local todo = {{j, s}}
  while #todo > 0 do
    local ended = table.remove(todo)
    for _, k in ipairs(wf_list('kids', ended[1])) do
      if wf_get('state', k) == 'w' then
        local left = tonumber(wf_get('wait', k)) - 1
        wf_set('wait', k, left)
        if not wf_holds(wf_cond(k), ended[2]) then
          wf_move(k, 'c')
          todo[#todo + 1] = {k, 'c'}
        elseif left == 0 and wf_cond(k) == 'g' then
          local outcome = wf_group_end(k)
          wf_set('state', k, outcome)
          todo[#todo + 1] = {k, outcome}
        elseif left == 0 then
          wf_move(k, 'q')
          wf_released[#wf_released + 1] = k
        end
      end
    end
  end
end

