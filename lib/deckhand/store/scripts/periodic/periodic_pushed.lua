-- Cluster mode: clears a periodic entry's pending push once periodic_push.lua
-- pushed it (or found it pushed), if the record is still that job's.
--
-- KEYS[1]  the entry's state (hash)
-- KEYS[2]  the set of entries with a pending push
-- ARGV[1]  the entry's name
-- ARGV[2]  the jid of the job pushed
--
-- Returns 1 cleared, 0 when the record was another job's or gone.
local jid = redis.call('HGET', KEYS[1], 'pending_jid')
if jid and jid ~= ARGV[2] then return 0 end
redis.call('SREM', KEYS[2], ARGV[1])
if not jid then return 0 end
redis.call('HDEL', KEYS[1], 'pending_queue', 'pending_tick', 'pending_jid', 'pending_payload')
return 1
