-- Unique locks (Deckhand::Unique): a string key holding the jid of the job
-- that owns it, with a TTL. Only its holder releases it.

-- A key that is not a string is no lock of ours (someone wrote another kind
-- of value there): releasing leaves it alone rather than fail the script
-- that settles the job halfway (pcall answers WRONGTYPE as a table).

-- Releases `key` if job `jid` holds it (a failure path: cost is no concern).
local function unique_release(key, jid)
  if redis.pcall('GET', key) == jid then redis.call('DEL', key) end
end

-- The same, in one command when the holder releases its own lock or the lock
-- already expired (the acknowledgement of every successful unique job pays
-- this). When another job took the lock after this one's expired, that job's
-- lock is put back, with `ttl` (ms) as its remaining life: its own is lost
-- with GETDEL, and a job of the same class asks for about as long.
local function unique_release_fast(key, jid, ttl)
  local holder = redis.pcall('GETDEL', key)
  if type(holder) == 'string' and holder ~= jid then redis.call('SET', key, holder, 'PX', ttl) end
end
