-- Records where a queue's keys live (Store::QueuePlacement): queue => hash tag,
-- first writer wins. A queue recorded already keeps its tag; a queue in the
-- queues set was created before placement and stays under its unplaced tag;
-- a new queue gets the caller's choice, unless another queue was placed
-- since the caller counted (the choice may no longer be the emptiest
-- primary: the caller chooses again).
--
-- KEYS[1]  the placement hash
-- KEYS[2]  the queues set
-- ARGV[1]  the queue's name
-- ARGV[2]  the tag chosen for it
-- ARGV[3]  its unplaced tag
-- ARGV[4]  how many placements the choice was made on; -1: record it anyway
--
-- Returns the queue's tag, or nil when the choice came too late.
local placement, queues = KEYS[1], KEYS[2]
local name, tag = ARGV[1], ARGV[2]

local recorded = redis.call('HGET', placement, name)
if recorded then
  return recorded
end
if redis.call('SISMEMBER', queues, name) == 1 then
  tag = ARGV[3]
elseif tonumber(ARGV[4]) >= 0 and redis.call('HLEN', placement) ~= tonumber(ARGV[4]) then
  return false
end
redis.call('HSETNX', placement, name, tag)
return tag
