# frozen_string_literal: true

require_relative "chore"
require_relative "../../store/scripts/batch/batch_ops"

module Deckhand
  module Server
    module Chores
      # Cluster mode: pushes the batch callbacks a process left in the outbox
      # when it stopped between firing them and pushing them (docs/batches.md,
      # "Cluster mode"), so they run even when no batch call and no boot
      # follows. Every server process runs one. A pass is one call of
      # batch_pending.lua in the {batches} slot (Store::Scripts::BatchOps#deliver_pending):
      # it lists the entries older than BatchOps::OUTBOX_AGE, never younger
      # ones, which their own caller is still pushing, and pushes them to their
      # queues once per jid however many processes take them at once
      # (Store::Features::BatchOutbox). An empty outbox costs that one round trip.
      #
      #   drain = BatchOutboxDrain.build(config: config, store: config.store)  # nil in plain mode
      #   drain&.start       # a pass every INTERVAL seconds, jittered
      #   drain.drain        # one pass now; how many callbacks it handed to their queues
      #   drain&.stop&.join(5)
      #
      # Every process looks once per INTERVAL, the outbox age itself: a fleet
      # of N processes makes N small calls per 30 s, about one a second for
      # thirty servers, so no lease is needed and any live server will do.
      # Bound: a callback a dead process left is in its queue at most
      # OUTBOX_AGE + INTERVAL * (1 + JITTER) after it fired (66 s), sooner
      # with more servers. A Redis failure is logged (Outage) and the pass is
      # tried again at the next interval.
      class BatchOutboxDrain < Chores::Chore
        INTERVAL = Store::Scripts::BatchOps::OUTBOX_AGE / 1000.0
        # Calls in a row while each comes back full (a backlog after many
        # crashes), before waiting for the next interval.
        ROUNDS = 10

        # nil in plain mode: there a callback is pushed in the step that fires
        # it, with no outbox.
        def self.build(config:, store:, on_fatal: nil)
          new(config: config, store: store, on_fatal: on_fatal) if store.layout.batches.outbox?
        end

        # interval: seconds between passes (tests shorten it); script: the
        # class whose #deliver_pending a pass calls.
        def initialize(config:, store:, on_fatal: nil, interval: INTERVAL, script: Store::Scripts::BatchOps)
          what = "batch outbox (callbacks left by a process that stopped)"
          super("batch-outbox", logger: config.logger, on_fatal: on_fatal, interval: interval, what: what)
          @config = config
          @store = store
          @script = script
        end

        # One pass: pushes what the outbox holds for longer than OUTBOX_AGE;
        # returns how many callbacks it handed to their queues.
        def drain
          total = 0
          ROUNDS.times do
            taken = @script.new(@store, now_ms: now_ms, stamp: Payload.now(@config.timestamps, clock: @store.clock)).deliver_pending
            total += taken
            break if taken < Store::Scripts::BatchOps::OUTBOX_TAKE
          end
          @logger.info("batch outbox: handed #{total} callback(s) left by a process that stopped to their queues") if total.positive?
          total
        end

        private

        def tick = drain

        def now_ms = @store.clock.now_ms
      end
    end
  end
end
