# frozen_string_literal: true

require_relative "../../layout/plain_batches"

module Deckhand
  class Store
    module Scripts
      # The contract every batch script (batch_*.lua) shares, lib/batch.lua:
      # KEYS declare the batch indexes, then in plain mode the queues set and
      # the schedule (the scripts push jobs there) or in cluster mode the
      # outbox, then the keys of each batch of the lineage and the queues
      # the call may push to; ARGV starts with the time, the mode, the
      # lineage and the queues, then the operation's own arguments. Each
      # subclass names its script and documents those arguments and its
      # reply; BatchOps runs them along a batch's lineage.
      #
      #   release = BatchRelease.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   release.call(["b1"], ["default"], [])   # plain mode => "ok"
      class BatchScript < Script # :nodoc:
        # The Lua every batch script needs, in the order each builds on the last.
        LIB = ["guard", "batch", "batch_outbox"].freeze

        # For the scripts that may complete a batch and fire its callbacks.
        CHECK = [*LIB, "batch_check"].freeze

        def initialize(store, now_ms:, stamp:)
          super(store)
          @now_ms = now_ms
          @stamp = stamp
          @batch_keys = store.layout.batches
        end

        # Plain mode: runs the script for the lineage `bids` (the batch, then
        # its parent and so on up), the `queues` it may push to (the
        # lineage's callback queues and those of the jobs it pushes) and the
        # operation's `args`; returns its reply. pushed: the jids of the jobs
        # the call pushes, waited for when push_replicas is set. mark: the
        # call's mark, declared last (batch_add.lua).
        def call(bids, queues, args, pushed: nil, mark: nil)
          layout = keys
          declared = [Layout::PlainBatches::INDEX, Layout::PlainBatches::EXPIRIES, layout::QUEUES, layout::SCHEDULE,
            *bids.flat_map { |bid| Layout::PlainBatches.all(bid) }, *queues.map { |queue| layout.queue(queue) }]
          declared << mark if mark
          argv = [@now_ms, @stamp, "", bids.size, *bids, queues.size, *queues, *args]
          return run(declared, argv) unless pushed
          run_durably(declared, argv) { |reply| (reply == "ok") ? pushed : [] }
        end

        # Cluster mode: as #call, every key in the {batches} slot, listing
        # the outbox's entries older than age_ms. Returns the reply, the
        # entries others left and this call's own, each [jid, queue, payload].
        def call_with_outbox(bids, queues, args, age_ms, mark: nil)
          reply, others, *entries = run(outbox_keys + bids.flat_map { |bid| @batch_keys.all(bid) } + [*mark],
            [@now_ms, @stamp, age_ms, bids.size, *bids, queues.size, *queues, *args])
          entries = entries.each_slice(3).to_a
          [reply, entries.first(others), entries.drop(others)]
        end

        private

        def outbox_keys = [@batch_keys::INDEX, @batch_keys::EXPIRIES, @batch_keys::OUTBOX, @batch_keys::OUTBOX_JOBS]
      end
    end
  end
end
