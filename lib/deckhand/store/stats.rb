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
      # busy threads of each process and the length of each queue.
      def totals(store)
        processed, failed, scheduled, retries, dead, identities, queues, expired = store.pipelined do |pipe|
          pipe.call("GET", store.keys::PROCESSED)
          pipe.call("GET", store.keys::FAILED)
          pipe.call("ZCARD", store.keys::SCHEDULE)
          pipe.call("ZCARD", store.keys::RETRY)
          pipe.call("ZCARD", store.keys::DEAD)
          pipe.call("SMEMBERS", store.keys::PROCESSES)
          pipe.call("SMEMBERS", store.keys::QUEUES)
          pipe.call("GET", store.keys::EXPIRED)
        end
        sizes = store.pipelined do |pipe|
          identities.each { |identity| ProcessRecord.busy(pipe, store.keys, identity) }
          queues.each { |name| pipe.call("LLEN", store.keys.queue(name)) }
        end
        {processed: processed.to_i, failed: failed.to_i, enqueued: sizes.drop(identities.size).sum(&:to_i),
         busy: sizes.first(identities.size).sum(&:to_i), processes: identities.size,
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
