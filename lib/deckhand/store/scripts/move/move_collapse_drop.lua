-- A queue move's last step for one carried record (Store::Tags::CollapseRecordMove),
-- in the old tag's slot: the record goes once its carry is written, unless
-- a push under the old tag (a process not yet following the move) named
-- another job since; that one the move's last copy carries.
--
-- KEYS[1]  the key's record under the old tag
-- ARGV[1]  the jid it named when it was carried
--
-- Returns 1 when it removed the record, else 0.
local record = KEYS[1]
if redis.call('TYPE', record).ok ~= 'hash' then
  return 0
end
if redis.call('HGET', record, 'jid') ~= ARGV[1] then
  return 0
end
return redis.call('DEL', record)
