# frozen_string_literal: true

require "json"
require_relative "../json_object"

module Deckhand
  class Store
    module Features
      # What periodic jobs keep in Redis besides what their scripts write: the
      # leader's schedule (JSON), the lease's holder, each entry's state, and
      # the pause flag the dashboard sets.
      #
      #   PeriodicState.write_schedule(store, {"leader" => id, "entries" => {...}})
      #   PeriodicState.schedule(store)               # => {"leader" => id, "entries" => {...}} or nil
      #   PeriodicState.leader(store)                 # => "host:12:abc" (the identity) or nil
      #   PeriodicState.states(store, ["nightly"])    # => [{"last_tick" => "1764000000", ...}]
      #   PeriodicState.pause(store, "nightly"); PeriodicState.resume(store, "nightly")
      module PeriodicState # :nodoc:
        module_function

        def write_schedule(store, record) = store.call("SET", store.layout::PERIODIC_SCHEDULE, JSON.generate(record))

        def schedule(store) = JsonObject.parse(store.call("GET", store.layout::PERIODIC_SCHEDULE))

        # The identity of the process holding the lease (its token is "<fence>:<identity>").
        def leader(store)
          token = store.call("GET", store.layout::PERIODIC_LEADER)
          token&.split(":", 2)&.last
        end

        def states(store, names)
          return [] if names.empty?
          store.pipelined { |pipe| names.each { |name| pipe.call("HGETALL", store.layout.periodic(name)) } }
        end

        def pause(store, name) = store.call("HSET", store.layout.periodic(name), "paused", Time.now.to_f)

        def resume(store, name) = store.call("HDEL", store.layout.periodic(name), "paused")

        # An "enqueue now" from the dashboard or the API, shown beside the ticks.
        def record_manual(store, name, jid) = store.call("HSET", store.layout.periodic(name), "manual_jid", jid, "manual_at", Time.now.to_f)
      end
    end
  end
end
