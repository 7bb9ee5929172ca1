-- Recovery of one queue's share of a dead process's in-flight record (used
-- by recover.lua for every queue at once, and by recover_queue.lua, one queue
-- per call, in cluster mode). Its unsettled jobs go back to the front of the
-- queue (they were next in line), counted as recoveries where the process
-- may have been running them. A job whose count reaches the limit is a
-- poison pill: it leaves circulation for the queue's poison hash, from which
-- the reaper writes it to the dead set. Payloads go back exactly as they
-- were: the counts live in the queue's recoveries hash, keyed by jid.
--
-- Counting rule (see docs/reliability.md):
--   * a job with no count (never recovered before) counts, since Redis cannot
--     tell whether the dead process had started it;
--   * a job with a count (a suspect) counts only if the process recorded it
--     as running (suspects record themselves before they start);
--   * jobs in the landing list count the same way: an idle process hands a
--     landed job straight to a thread.

local function recover_jid(payload)
  local ok, job = pcall(cjson.decode, payload)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then return job.jid end
  return nil
end

-- Checks the type of every key recover_queue will touch (lib/guard.lua), so
-- that a caller that runs this for every queue first fails, if it fails,
-- before its first write: a queue of another type would otherwise refuse a
-- job after others went back but before their lot was forgotten, and they
-- would go back twice on the next try.
local function recover_guard(keys, lots)
  guard_all({keys.inflight, 'hash', keys.landing, 'list', keys.queue, 'list', keys.counts, 'hash',
    keys.suspects, 'set', keys.poison, 'hash', keys.throttle, 'hash'})
  for _, lot in ipairs(lots) do guard(lot[1], 'list') end
end

-- keys: inflight (the process's in-flight hash for the queue), landing (its
-- landing list), queue, counts (the queue's recovery counts), suspects (the
-- process's running suspects), poison (the queue's poison hash), throttle
-- (the queue's throttle hash: the process's slots go back). lots: {key, id}
-- per lot of the queue, in id order. Returns recovered, counted, poisoned.
local function recover_queue(identity, limit, ttl, keys, lots)
  local recovered, counted, poisoned, bumped = 0, 0, 0, false

  local function give_back(payload)
    local jid = recover_jid(payload)
    local suspect = jid and redis.call('HEXISTS', keys.counts, jid) == 1
    if jid and ((not suspect) or redis.call('SISMEMBER', keys.suspects, jid) == 1) then
      local count = redis.call('HINCRBY', keys.counts, jid, 1)
      counted = counted + 1
      bumped = true
      if count >= limit then
        redis.call('HDEL', keys.counts, jid)
        redis.call('HSET', keys.poison, identity .. '|' .. jid, payload)
        poisoned = poisoned + 1
        return
      end
    end
    redis.call('RPUSH', keys.queue, payload)
    recovered = recovered + 1
  end

  -- The landing list first (newest on its left), so the jobs taken earliest
  -- end up at the very front.
  for _, payload in ipairs(redis.call('LRANGE', keys.landing, 0, -1)) do give_back(payload) end
  redis.call('DEL', keys.landing)

  -- Lots last taken first, jobs last taken first.
  local fields = lot_fields(keys.inflight)
  for n = #lots, 1, -1 do
    local lot, id = lots[n][1], lots[n][2]
    local jobs = redis.call('LRANGE', lot, 0, -1)
    for position = #jobs - 1, 0, -1 do
      if not lot_settled(fields, id, position) then give_back(jobs[position + 1]) end
    end
    lot_forget(keys.inflight, fields, lot, id)
  end

  if bumped then
    redis.call('HINCRBY', keys.counts, '~v', 1)
    redis.call('EXPIRE', keys.counts, ttl)
  end
  redis.call('DEL', keys.suspects)
  throttle_release_all(keys.throttle, identity)
  return recovered, counted, poisoned
end
