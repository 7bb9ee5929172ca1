# frozen_string_literal: true

require "json"
require "deckhand"
require "deckhand/store/inflight"
require "deckhand/store/inflight/lot_bits"

module Torture
  module Faults
    # Where every job is, once the stream drained: the books of the drill.
    # A jid is found in each place that holds it: "succeeded" (its run
    # reached the end, per the ledger), a queue (or a fair queue's tenants'
    # jobs, "fair:<queue>", waiting for their turn; a paused class's held
    # set, "held:<queue>:<class>"), "inflight" (an unsettled job
    # of a live process's in-flight record), "schedule", "retry", "dead", or
    # "stranded" (a lot or landing list no live owner's record names: in
    # flight with no one to run it or hand it back).
    #
    #   census = Census.new(redis, store, ledger).take
    #   census.places["3fa9..."]   # => ["succeeded"]
    #   census.verdict(acked)      # => {lost: [...], doubled: [...], stranded: [...]}
    class Census
      attr_reader :places, :runs

      def initialize(redis, store, ledger)
        @redis = redis
        @store = store
        @ledger = ledger
        @places = Hash.new { |h, k| h[k] = [] }
      end

      def take
        @runs = @ledger.call("HGETALL", Books::SUCCEEDED).transform_values(&:to_i)
        @runs.each_key { |jid| @places[jid] << "succeeded" }
        queues.each { |queue| @redis.call("LRANGE", "queue:#{queue}", 0, -1).each { |raw| found(raw, "queue:#{queue}") } }
        scan("deckhand:fair:*").each do |key|
          # "<tenant>\n<payload>"
          @redis.call("ZRANGE", key, 0, -1).each { |entry| found(entry.split("\n", 2).last, key.sub("deckhand:", "")) }
        end
        %w[schedule retry dead].each { |set| @redis.call("ZRANGE", set, 0, -1).each { |raw| found(raw, set) } }
        scan("deckhand:held:*").each { |key| @redis.call("ZRANGE", key, 0, -1).each { |raw| found(raw, key.sub("deckhand:", "")) } }
        in_flight
        self
      end

      # The acked jids found nowhere, or in more than one place, and every
      # jid stranded; `failed` (pushes that raised) and `replaced` (debounced
      # pushes a later push of their key replaced) may be nowhere, never twice.
      def verdict(acked, failed = [], replaced = [])
        lost = acked.reject { |jid| @places.key?(jid) }
        doubled = (acked + failed + replaced).select { |jid| @places.key?(jid) && @places[jid].size > 1 }
        stranded = @places.select { |_, where| where.include?("stranded") }.keys
        {lost: lost, doubled: doubled, stranded: stranded}
      end

      # Jobs whose run reached the end more than once (at-least-once delivery:
      # allowed, reported).
      def duplicate_runs = @runs.count { |_, n| n > 1 }

      def describe(jid) = "#{jid} in [#{@places[jid].join(", ")}]"

      private

      def found(raw, place)
        jid = begin
          JSON.parse(raw)["jid"]
        rescue JSON::ParserError, NoMethodError, TypeError
          nil
        end
        @places[jid] << place if jid.is_a?(String)
      end

      def queues = (@redis.call("SMEMBERS", "queues") | scan("queue:*").map { |key| key.delete_prefix("queue:") })

      # Unsettled jobs of live owners count as in flight; any lot or landing
      # list no live owner's record names is stranded.
      def in_flight
        owners = @redis.call("HGETALL", "deckhand:owners").to_h { |id, raw| [id, JSON.parse(raw)] }
        live = owners.select { |identity, _| @redis.call("EXISTS", identity) == 1 }
        named = {}
        live.each do |identity, record|
          queues = record["queues"] || ["default"]
          Deckhand::Store::Inflight.payloads(@store, identity, queues).each_value { |list| list.each { |raw| found(raw, "inflight") } }
          queues.each do |queue|
            Deckhand::Store::Inflight::LotBits.ids(@redis.call("HKEYS", "deckhand:inflight:#{identity}:#{queue}")).each do |id|
              named["deckhand:lot:#{identity}:#{queue}:#{id}"] = true
            end
            named["deckhand:landing:#{identity}:#{queue}"] = true
          end
        end
        (scan("deckhand:lot:*") + scan("deckhand:landing:*")).each do |key|
          next if named[key]
          @redis.call("LRANGE", key, 0, -1).each { |raw| found(raw, "stranded") }
        end
      end

      def scan(pattern)
        keys = []
        cursor = "0"
        loop do
          cursor, batch = @redis.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
          keys.concat(batch)
          return keys.uniq if cursor == "0"
        end
      end
    end
  end
end
