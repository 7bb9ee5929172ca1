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
      module_function

      # Two round trips: the counters, set sizes and names first, then the
      # busy threads of each process and the length of each queue. In
      # cluster mode the scheduled, retry and dead counts add up every known
      # queue's shards, read with the queue lengths.
      def totals(store)
        keys = store.keys
        processed, failed, identities, queues, expired, *sets = store.pipelined do |pipe|
          pipe.call("GET", keys::PROCESSED)
          pipe.call("GET", keys::FAILED)
          pipe.call("SMEMBERS", keys::PROCESSES)
          pipe.call("SMEMBERS", keys::QUEUES)
          pipe.call("GET", keys::EXPIRED)
          [keys::SCHEDULE, keys::RETRY, keys::DEAD].each { |set| pipe.call("ZCARD", set) } unless keys.sharded?
        end
        sizes = store.pipelined do |pipe|
          identities.each { |identity| ProcessRecord.busy(pipe, keys, identity) }
          queues.each { |name| pipe.call("LLEN", keys.queue(name)) }
          shards(keys, queues).each { |set| pipe.call("ZCARD", set) }
        end
        busy = sizes.shift(identities.size)
        enqueued = sizes.shift(queues.size)
        sets = sizes.each_slice(3).to_a.transpose.map(&:sum) if keys.sharded?
        scheduled, retries, dead = sets.empty? ? [0, 0, 0] : sets
        {processed: processed.to_i, failed: failed.to_i, enqueued: enqueued.sum(&:to_i),
         busy: busy.sum(&:to_i), processes: identities.size,
         scheduled: scheduled, retries: retries, dead: dead, expired: expired.to_i}
      end

      # Cluster mode: each known queue's scheduled, retry and dead sets.
      def shards(keys, queues)
        return [] unless keys.sharded?
        queues.flat_map { |queue| [keys.scheduled_set(queue), keys.retry_set(queue), keys.dead_set(queue)] }
      end

      # Sets the all-time counters named (:processed, :failed) back to zero;
      # the daily ones stay (Sidekiq's Stats#reset).
      def reset(store, names)
        keys = names.map { |name| {processed: store.keys::PROCESSED, failed: store.keys::FAILED}.fetch(name) }
        store.pipelined { |pipe| keys.each { |key| pipe.call("SET", key, "0") } } unless keys.empty?
        nil
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
