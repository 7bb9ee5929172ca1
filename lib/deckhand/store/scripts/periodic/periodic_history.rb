# frozen_string_literal: true

require "json"
require_relative "../../json_object"

module Deckhand
  class Store
    module Scripts
      # Runs periodic_history.lua: the record of one tick of a periodic entry
      # in the entry's capped history (KEPT ticks, newest first). `first:`
      # writes only a tick that has no record yet (the leader's "enqueued",
      # which a fast server's "running" may have beaten); otherwise the record
      # replaces the tick's.
      #
      #   history = PeriodicHistory.new(store)
      #   history.call(name: "nightly", record: {"tick" => 1_764_000_000, "state" => "enqueued", "jid" => jid}, first: true)  # => true
      #   history.call(name: "nightly", record: {"tick" => 1_764_000_000, "state" => "succeeded", "jid" => jid})            # => true
      class PeriodicHistory < Script # :nodoc:
        lua "periodic/periodic_history", uses: ["guard"]

        KEPT = 20

        def call(name:, record:, first: false)
          tick = Integer(record.fetch("tick"))
          run([keys.periodic_history(name)], [tick, JSON.generate(record), KEPT, first ? "first" : "next"]) == 1
        end

        # Each entry's records, newest tick first, in one round trip:
        # [[{"tick" => ..., "state" => ...}, ...], ...] (unreadable ones left out).
        def self.read(store, names)
          return [] if names.empty?
          lists = store.pipelined { |pipe| names.each { |name| pipe.call("LRANGE", store.layout.periodic_history(name), 0, KEPT - 1) } }
          lists.map { |raws| raws.filter_map { |raw| parse(raw) } }
        end

        def self.parse(raw)
          record = JsonObject.parse(raw)
          record if record && record["tick"].is_a?(Numeric)
        end
      end
    end
  end
end
