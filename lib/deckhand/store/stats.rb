# frozen_string_literal: true

require_relative "process_record"

module Deckhand
  class Store
    # The fleet's counters as Sidekiq keeps them: `stat:processed` and
    # `stat:failed` all time and per UTC day (`stat:processed:2026-03-01`),
    # which server heartbeats increment; plus the sizes the dashboard shows
    # beside them.
    #
    #   Stats.totals(store)   # => {processed: 1204, failed: 17, enqueued: 5, busy: 7, processes: 2, ...}
    #   Stats.daily(store, ["2026-02-28", "2026-03-01"])   # => [[10, 0], [40, 4]]
    module Stats
      # The sorted sets whose sizes the totals count, by their Keys method.
      SETS = %i[scheduled_set retry_set dead_set].freeze

      module_function

      # Two round trips: the counters, set sizes and names first, then the
      # busy threads of each process and the length of each queue (in cluster
      # mode also the size of each queue's scheduled, retry and dead set).
      def totals(store)
        keys = store.keys
        processed, failed, identities, queues, expired, *sets = store.pipelined do |pipe|
          pipe.call("GET", keys::PROCESSED)
          pipe.call("GET", keys::FAILED)
          pipe.call("SMEMBERS", keys::PROCESSES)
          pipe.call("SMEMBERS", keys::QUEUES)
          pipe.call("GET", keys::EXPIRED)
          SETS.each { |set| pipe.call("ZCARD", keys.public_send(set, nil)) } unless keys.sharded?
        end
        sizes = store.pipelined do |pipe|
          identities.each { |identity| ProcessRecord.busy(pipe, store.keys, identity) }
          queues.each { |name| pipe.call("LLEN", keys.queue(name)) }
          queues.each { |name| SETS.each { |set| pipe.call("ZCARD", keys.public_send(set, name)) } } if keys.sharded?
        end
        busy = sizes.shift(identities.size)
        enqueued = sizes.shift(queues.size)
        sets = SETS.each_index.map { |i| sizes.each_slice(SETS.size).sum { |shard| shard[i] } } if keys.sharded?
        scheduled, retries, dead = sets
        {processed: processed.to_i, failed: failed.to_i, enqueued: enqueued.sum(&:to_i),
         busy: busy.sum(&:to_i), processes: identities.size,
         scheduled: scheduled, retries: retries, dead: dead, expired: expired.to_i}
      end

      # [processed, failed] of each date ("YYYY-MM-DD"), in one round trip.
      def daily(store, dates)
        processed, failed = store.pipelined do |pipe|
          pipe.call("MGET", *dates.map { |date| store.keys.daily(store.keys::PROCESSED, date) })
          pipe.call("MGET", *dates.map { |date| store.keys.daily(store.keys::FAILED, date) })
        end
        processed.zip(failed).map { |p, f| [p.to_i, f.to_i] }
      end
    end
  end
end
