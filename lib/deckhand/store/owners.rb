# frozen_string_literal: true

module Deckhand
  class Store
    # The registry of processes that own in-flight records (identity => JSON
    # with their queues, no TTL), how a dead process's jobs are found again,
    # and the short lock that lets one reaper act at a time.
    #
    #   Owners.register(store, identity, {"queues" => ["default"]})
    #   Owners.all(store)                       # => {identity => {"queues" => [...]}, ...}
    #   Owners.alive(store, [id1, id2])         # => [true, false]: whose process record exists
    #   Owners.lock(store, identity, ttl_ms)    # => true for one caller per ttl
    module Owners
      module_function

      def register(store, identity, record) = store.call("HSET", Keys::OWNERS, identity, JSON.generate(record))

      def forget(store, identity) = store.call("HDEL", Keys::OWNERS, identity)

      # identity => the record as a Hash (an unreadable record reads as {}).
      def all(store)
        store.call("HGETALL", Keys::OWNERS).transform_values do |raw|
          record = JSON.parse(raw)
          record.is_a?(Hash) ? record : {}
        rescue JSON::ParserError
          {}
        end
      end

      # Whether each identity's heartbeat record still exists.
      def alive(store, identities)
        return [] if identities.empty?
        replies = store.pipelined { |pipe| identities.each { |id| pipe.call("EXISTS", Keys.process(id)) } }
        replies.map(&:positive?)
      end

      def lock(store, identity, ttl_ms) = store.call("SET", Keys::REAPER_LOCK, identity, "NX", "PX", ttl_ms) == "OK"
    end
  end
end
