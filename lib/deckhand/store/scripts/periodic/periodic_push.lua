-- Cluster mode: pushes a periodic entry's recorded tick (periodic_enqueue.lua)
-- to its queue, once whoever retries: the queue's marker for the entry keeps
-- the latest tick pushed there, and ticks of one entry are pushed in order
-- (a new tick is recorded only once the previous one's push is complete), so
-- a tick at or before the marker was pushed already: by this caller before a
-- crash or a lost reply, or by another process completing the same record.
--
-- KEYS[1]  the queue
-- KEYS[2]  the entry's marker in the queue's slot (string: the latest tick pushed)
-- ARGV[1]  the tick (epoch seconds)
-- ARGV[2]  the job's payload
-- ARGV[3]  the marker's time to live, ms (it outlives any pending record)
--
-- Returns 1 pushed, 0 pushed before.
--
-- The job is pushed before the marker is written, and the queue's type is
-- checked first (lib/guard.lua): a marker written for a push Redis then
-- refused would make every retry find the tick pushed, and it would never run.
if tonumber(ARGV[1]) <= tonumber(redis.call('GET', KEYS[2]) or '0') then return 0 end
guard(KEYS[1], 'list')
redis.call('LPUSH', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return 1
