# frozen_string_literal: true

require_relative "../json_object"

module Deckhand
  class Store
    module Inflight
      # The registry of processes that own in-flight records (identity => JSON
      # with their queues, no TTL), how a dead process's jobs are found again,
      # and the short lock that lets one reaper act at a time.
      #
      #   Owners.register(store, identity, {"queues" => ["default"]})
      #   Owners.all(store)                       # => {identity => {"queues" => [...]}, ...}
      #   Owners.registered?(store, identity)     # => true
      #   Owners.beats(store, [id1, id2])         # => [1732000002.1, ["1732000000.5", nil]]: Redis' time, last heartbeats
      #   Owners.lock(store, identity, ttl_ms)    # => true for one caller per ttl
      module Owners # :nodoc:
        module_function

        def register(store, identity, record) = store.call("HSET", store.layout::OWNERS, identity, JSON.generate(record))

        def forget(store, identity) = store.call("HDEL", store.layout::OWNERS, identity)

        # False once a reaper recovered the process's jobs (recover.lua removes
        # it from the registry in the same step).
        def registered?(store, identity) = store.call("HEXISTS", store.layout::OWNERS, identity) == 1

        # identity => the record as a Hash (an unreadable record reads as {}).
        def all(store)
          store.call("HGETALL", store.layout::OWNERS).transform_values { |raw| JsonObject.record(raw) }
        end

        # Redis' time (epoch seconds) and each identity's last heartbeat
        # (epoch seconds by the fleet's clock, a String as stored, or nil once
        # its process record expired), in one round trip: the beats are judged
        # by Redis' clock, never the reaper's host's.
        def beats(store, identities)
          replies = store.pipelined do |pipe|
            pipe.call("TIME")
            identities.each { |id| pipe.call("HGET", store.layout.process(id), "beat") }
          end
          time = replies.shift
          [Integer(time[0]) + (Integer(time[1]) / 1_000_000.0), replies]
        end

        def lock(store, identity, ttl_ms) = store.call("SET", store.layout::REAPER_LOCK, identity, "NX", "PX", ttl_ms) == "OK"
      end
    end
  end
end
