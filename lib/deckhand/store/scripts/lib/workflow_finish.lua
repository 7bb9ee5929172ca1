-- How an end travels down the graph (lib/workflow.lua).
-- Ends step j as `s`. A step waiting for it is released once it waits for
-- nothing more, or cancelled (and its own waiting steps after it) as soon as
-- its condition cannot hold. Each step is released at most once: only a
-- waiting step (w) is touched, and it leaves w as it is released or
-- cancelled. O(1) work per step waiting on an end, or cancelled.
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
        elseif left == 0 then
          wf_move(k, 'q')
          wf_released[#wf_released + 1] = k
        end
      end
    end
  end
end

