-- The workflow scripts' shared state (KEYS and ARGV:
-- Store::Scripts::WorkflowScript). A step is w (waiting for its parents), q
-- (released: its job is in its queue), r (running), y (failed, to be
-- retried), or ended: s (succeeded), x (failed, dropped), d (dead) or c
-- (cancelled: what it waits for can no longer happen). A sub-workflow
-- (Workflow#add_workflow) is a step of condition g with no job, waiting for
-- every step in it: it goes from w straight to its end as they end
-- (lib/workflow_finish.lua), and is not counted among the steps. An operation reads
-- through wf_get and plans in the cache; wf_flush (lib/workflow_flush.lua)
-- checks every key it writes, then writes.
local W, wf_cache, wf_dirty = {}, {}, {}
for i, part in ipairs({'meta', 'state', 'on', 'wait', 'kids', 'parents', 'jobs', 'results', 'errors', 'info', 'names',
  'runs', 'done', 'queues', 'index', 'expiry', 'counts'}) do W[part], wf_cache[part], wf_dirty[part] = KEYS[i], {}, {} end
local wf_now, wf_stamp, wf_outbox, wf_nq = tonumber(ARGV[1]), ARGV[2], ARGV[3] == 'outbox', tonumber(ARGV[4])
local wf_queue_key, wf_released, wf_meta, wf_state, wf_open_steps, wf_cancelled = {}, {}, {}, nil, 0, false
for i = 1, wf_nq do wf_queue_key[ARGV[4 + i]] = wf_outbox or KEYS[17 + i] end -- cluster mode (ARGV[3]): a name
local function wf_arg(i) return ARGV[4 + wf_nq + i] end
local WF_ENDED = {s = true, x = true, d = true, c = true}
local WF_COUNT = {s = 'succeeded', x = 'failed', d = 'dead', c = 'cancelled', open = 'open', total = 'total'}
local wf_delta = {s = 0, x = 0, d = 0, c = 0, open = 0, total = 0}

-- A hash field, read once per call (HGET refuses a key of another type
-- before anything is written: every read comes before the first write).
local function wf_get(h, j)
  if wf_cache[h][j] == nil then wf_cache[h][j] = redis.call('HGET', W[h], j) end
  return wf_cache[h][j]
end

local function wf_set(h, j, v)
  wf_get(h, j)
  wf_cache[h][j], wf_dirty[h][j] = v, true
end

-- A field of a step this call adds, which no hash holds yet: written
-- unread (wf_flush checks the type of every hash it writes).
local function wf_put(h, j, v)
  wf_cache[h][j], wf_dirty[h][j] = v, true
end

-- Jids appended to a field by this call (lib/workflow_append.lua).
local wf_more = {kids = {}, names = {}, parents = {}}

-- The field as it will be written.
local function wf_value(h, j)
  local v, more = wf_cache[h][j], wf_more[h] and wf_more[h][j]
  if not more then return tostring(v) end
  local added = table.concat(more, ' ')
  return (v and v ~= '') and (v .. ' ' .. added) or added
end

local function wf_list(h, j)
  local out = {}
  for x in string.gmatch(wf_get(h, j) or '', '%S+') do out[#out + 1] = x end
  for _, x in ipairs(wf_more[h] and wf_more[h][j] or {}) do out[#out + 1] = x end
  return out
end

local function wf_cond(j) return string.sub(wf_get('on', j), 1, 1) end

-- Whether condition `cond` holds for an end `s`: c (complete) for any, s
-- for a success, f for a failure (the step's job died or was dropped); g
-- (a sub-workflow) waits for every end of its steps.
local function wf_holds(cond, s)
  return cond == 'c' or cond == 'g' or (cond == 's' and s == 's') or (cond == 'f' and (s == 'x' or s == 'd'))
end

-- Step j to state `to`, the workflow's counts with it. A sub-workflow,
-- not counted, has its state set alone (wf_set), where its condition was read.
local function wf_move(j, to)
  local from = wf_get('state', j)
  if WF_ENDED[from] then wf_delta[from] = wf_delta[from] - 1 else wf_delta.open = wf_delta.open - 1 end
  if WF_ENDED[to] then wf_delta[to] = wf_delta[to] + 1 else wf_delta.open = wf_delta.open + 1 end
  wf_set('state', j, to)
end
