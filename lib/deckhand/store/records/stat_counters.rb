# frozen_string_literal: true

require_relative "process_record"

module Deckhand
  class Store # :nodoc:
    module Records
      # The fleet's counters as Sidekiq keeps them: `stat:processed` and
      # `stat:failed` all time and per UTC day (`stat:processed:2026-03-01`),
      # which server heartbeats increment; plus the sizes the dashboard shows
      # beside them.
      #
      #   StatCounters.totals(store)   # => {processed: 1204, failed: 17, enqueued: 5, busy: 7, processes: 2, ...}
      #   StatCounters.daily(store, ["2026-02-28", "2026-03-01"])   # => [[10, 0], [40, 4]]
      module StatCounters # :nodoc:
        SET_KINDS = %i[scheduled_set retry_set dead_set].freeze

        module_function

        # Two round trips: the counters and names first, then the busy threads
        # of each process, the length of each queue and the size of each
        # scheduled, retry and dead set (in cluster mode every known queue's
        # own, added up). `lists` gives the lists of a queue (a partitioned
        # queue's partitions, Config::Partitions#names), all counted as enqueued.
        def totals(store, lists: nil)
          keys = store.layout
          processed, failed, identities, queues, expired = store.pipelined do |pipe|
            pipe.call("GET", keys::PROCESSED)
            pipe.call("GET", keys::FAILED)
            pipe.call("SMEMBERS", keys::PROCESSES)
            pipe.call("SMEMBERS", keys::QUEUES)
            pipe.call("GET", keys::EXPIRED)
          end
          sets = SET_KINDS.map { |kind| keys.set_keys(kind, queues).map(&:last) }
          queues = queues.flat_map { |queue| lists.call(queue) }.uniq if lists
          sizes = store.pipelined do |pipe|
            identities.each { |identity| Records::ProcessRecord.busy(pipe, keys, identity) }
            queues.each { |name| pipe.call("LLEN", keys.queue(name)) }
            queues.each { |name| pipe.call("ZCARD", keys.fair_jobs(name)) } # a fair queue's tenants' jobs
            sets.flatten.each { |set| pipe.call("ZCARD", set) }
          end
          busy = sizes.shift(identities.size)
          enqueued = sizes.shift(queues.size) + sizes.shift(queues.size)
          scheduled, retries, dead = sets.map { |list| sizes.shift(list.size).sum }
          {processed: processed.to_i, failed: failed.to_i, enqueued: enqueued.sum(&:to_i),
           busy: busy.sum(&:to_i), processes: identities.size,
           scheduled: scheduled, retries: retries, dead: dead, expired: expired.to_i}
        end

        # Sets the all-time counters named (:processed, :failed) back to zero;
        # the daily ones stay (Sidekiq's Stats#reset).
        def reset(store, names)
          keys = names.map { |name| {processed: store.layout::PROCESSED, failed: store.layout::FAILED}.fetch(name) }
          store.pipelined { |pipe| keys.each { |key| pipe.call("SET", key, "0") } } unless keys.empty?
          nil
        end

        # [processed, failed] of each date ("YYYY-MM-DD"), in one round trip.
        def daily(store, dates)
          processed, failed = store.pipelined do |pipe|
            pipe.call("MGET", *dates.map { |date| store.layout.daily(store.layout::PROCESSED, date) })
            pipe.call("MGET", *dates.map { |date| store.layout.daily(store.layout::FAILED, date) })
          end
          processed.zip(failed).map { |p, f| [p.to_i, f.to_i] }
        end
      end
    end
  end
end
