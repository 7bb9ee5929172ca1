-- A running step (the adder) adds steps, all or none; one there already is left as it is, so a
-- rerun of the adder adds each once (Workflow::Extension). Each is released at once when its parents
-- all ended as it asks, cancelled (down the graph) when one ended as it refuses. A grafted one holds
-- back the adder's dependents too, and waits only for the adder, ended steps and the adder's grafted
-- steps, so no dependent waits for itself. A step added inside sub-workflows (Workflow#add_workflow:
-- the adder's kids of condition g) joins them, each waiting for it too, and so waits only for the
-- adder, ended steps, steps the adder added, and steps in them all: no sub-workflow then waits for
-- itself. ARGV after the queues: the adder's jid, n, then per step: jid, on ('g': a sub-workflow it
-- adds, after its steps), parents (jids, or @name), name, job, info (with "by" and "graft", in that
-- order), '1' to graft it ('i': in a grafted sub-workflow). Replies how many it added, 'gone',
-- 'stale', 'cancelled', 'not_running'.
local function extend()
  local closed = wf_open()
  if closed then return closed end
  local adder, dependents, grafted, refused, groups, added = wf_arg(1), {}, {}, {}, {}, {}
  if wf_cancelled then return 'cancelled' end
  if wf_state ~= 'running' or wf_get('state', adder) ~= 'r' then return 'not_running' end
  local mine = '"by":"' .. adder .. '","graft":'
  for _, k in ipairs(wf_list('kids', adder)) do
    if wf_cond(k) == 'g' then
      if wf_get('state', k) == 'w' then groups[#groups + 1] = k end -- open while the adder runs
    elseif wf_get('state', k) == 'w' and not string.find(wf_get('info', k), mine, 1, true) then
      dependents[#dependents + 1] = k
    end
  end
  -- Whether step p is in every sub-workflow the adder is in (its kids name them).
  local function inside(p)
    local of = {}
    for _, k in ipairs(wf_list('kids', p)) do of[k] = true end
    for _, g in ipairs(groups) do if not of[g] then return false end end
    return true
  end
  for i = 3, 2 + 7 * tonumber(wf_arg(2)), 7 do
    local j, on, graft, group = wf_arg(i), wf_arg(i + 1), wf_arg(i + 6) ~= '', wf_arg(i + 1) == 'g'
    if not wf_get('state', j) then
      local queue, parents, seen, left = string.sub(on, 2), {}, {}, 0
      for ref in string.gmatch(wf_arg(i + 2), '%S+') do
        local found = (string.sub(ref, 1, 1) == '@') and wf_list('names', string.sub(ref, 2)) or {}
        for _, p in ipairs(#found > 0 and found or {ref}) do
          local s = wf_get('state', p)
          local why = not s and 'which the workflow does not have' or (graft and p ~= adder and not WF_ENDED[s] and not string.find(wf_get('info', p),
            mine .. 'true', 1, true) and 'which it may not, grafted (add it with graft: false): a step after the adding step could wait for itself')
            or (#groups > 0 and p ~= adder and not WF_ENDED[s] and not string.find(wf_get('info', p), mine, 1, true) and not inside(p)
              and 'which is outside the sub-workflow the adding step is in: a step added there waits only for its steps, or for steps that ended')
          if why then return redis.error_reply('ERR workflow: step ' .. j .. ' waits for ' .. ref .. ', ' .. why .. '; nothing was changed') end
          if not seen[p] then
            seen[p], parents[#parents + 1] = true, p
            wf_append('kids', p, j) -- an ended parent too: its retry may revive j (lib/workflow_reopen.lua)
            if not WF_ENDED[s] then left = left + 1 elseif not wf_holds(string.sub(on, 1, 1), s) then refused[#refused + 1] = j end
          end
        end
      end
      if not group and not wf_queue_key[queue] then return 'stale' end -- a sub-workflow (g, waiting for its new steps) has no job and no count
      for h, v in pairs({state = 'w', on = on, parents = table.concat(parents, ' '), wait = left, jobs = not group and wf_arg(i + 4) or nil, info = wf_arg(i + 5)}) do wf_put(h, j, v) end
      if not group then wf_delta.open, wf_delta.total = wf_delta.open + 1, wf_delta.total + 1 end
      wf_append('names', wf_arg(i + 3), j)
      if left == 0 and refused[#refused] ~= j then
        wf_move(j, 'q')
        wf_released[#wf_released + 1] = j
      end
      if wf_arg(i + 6) == '1' then grafted[#grafted + 1] = j end -- 'i': in a grafted sub-workflow, waited for through it
      added[#added + 1] = j
    end
  end
  wf_meta.queues = table.concat({unpack(ARGV, 5, 4 + wf_nq)}, ' ') -- declared: those wf_open found, and the new steps'
  for _, k in ipairs(dependents) do
    for _, g in ipairs(grafted) do
      wf_append('parents', k, g)
      wf_append('kids', g, k)
      wf_set('wait', k, tonumber(wf_get('wait', k)) + 1)
    end
  end
  for _, g in ipairs(#added > 0 and groups or {}) do -- the sub-workflows the adder is in hold what it added: each waits for them too
    for _, j in ipairs(added) do
      wf_append('parents', g, j)
      wf_append('kids', j, g)
    end
    wf_set('wait', g, tonumber(wf_get('wait', g)) + #added)
  end
  for _, j in ipairs(refused) do -- last, so what waits for them, added or grafted, learns it
    if wf_get('state', j) == 'w' then wf_finish(j, 'c') end
  end
  return wf_flush() or wf_delta.total -- the steps added
end

return extend()
