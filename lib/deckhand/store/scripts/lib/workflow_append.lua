-- Appends jid x to field h of step j, joined once as it is written (lib/workflow_flush.lua): a step
-- with 10,000 kids costs no more per kid. Sent only to the scripts that add steps (lib/workflow.lua).
local function wf_append(h, j, x)
  local more = wf_more[h][j]
  if not more then
    wf_get(h, j)
    more, wf_dirty[h][j] = {}, true
    wf_more[h][j] = more
  end
  more[#more + 1] = x
end
