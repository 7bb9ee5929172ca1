# frozen_string_literal: true

require_relative "chore"
require_relative "../../store/features/workflow_outbox"

module Deckhand
  module Server
    module Chores
      # Cluster mode: pushes to their queues the jobs of workflow steps a
      # process released and left in the workflows' outbox when it stopped
      # before pushing them (docs/workflows.md, "Cluster mode"), so those
      # steps run with no further workflow call. Every server process runs
      # one, beside the batch outbox's (BatchOutboxDrain): a pass takes the
      # entries older than Store::Features::WorkflowOutbox::AGE_MS, never
      # younger ones, which their own caller is still pushing, and pushes
      # each job once per jid however many processes take it at once. An
      # empty outbox costs one round trip.
      #
      #   drain = WorkflowOutboxDrain.build(config: config, store: config.store)  # nil in plain mode
      #   drain&.start       # a pass every INTERVAL seconds, jittered
      #   drain.drain        # one pass now; how many jobs it pushed to their queues
      #   drain&.stop&.join(5)
      #
      # Bound: a step a dead process released is in its queue at most
      # AGE_MS + INTERVAL * (1 + JITTER) after its release while any server
      # runs. A Redis failure is logged (Outage) and the pass is tried again
      # at the next interval.
      class WorkflowOutboxDrain < Chores::Chore
        INTERVAL = Store::Features::WorkflowOutbox::AGE_MS / 1000.0

        # nil in plain mode: there a step's job is pushed by the script that
        # releases it, with no outbox.
        def self.build(config:, store:, on_fatal: nil)
          new(config: config, store: store, on_fatal: on_fatal) if store.layout.workflows.outbox?
        end

        # interval: seconds between passes; age_ms: how old an entry must be
        # (tests shorten both).
        def initialize(config:, store:, on_fatal: nil, interval: INTERVAL, age_ms: Store::Features::WorkflowOutbox::AGE_MS)
          what = "workflow outbox (released steps left by a process that stopped)"
          super("workflow-outbox", logger: config.logger, on_fatal: on_fatal, interval: interval, what: what)
          @store = store
          @age_ms = age_ms
        end

        # One pass: how many jobs it pushed to their queues.
        def drain
          pushed = Store::Features::WorkflowOutbox.new(@store, now_ms: @store.clock.now_ms).deliver(age_ms: @age_ms)
          @logger.info("workflow outbox: pushed #{pushed} released step(s) left by a process that stopped to their queues") if pushed.positive?
          pushed
        end

        private

        def tick = drain
      end
    end
  end
end
