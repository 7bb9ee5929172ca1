# frozen_string_literal: true

require_relative "landing_lot"
require_relative "idle_waiters"
require_relative "processor_take"

module Deckhand
  module Server
    module Fetch
      module Idle
        # A capsule's waits in Redis for a push while its queues are empty:
        # its idle waiter threads (IdleWaiters), and in a thread capsule of
        # three threads or more its idle processors' own waits
        # (ProcessorWaits, taken through ProcessorTake). Whichever wait a push
        # reaches moves the job into the process's landing list, where it
        # stays until acknowledged. The fetcher arms them when a fetch finds
        # its queues empty and ends them at quiet, before it hands back what it
        # holds.
        #
        #   waits = Waits.new(capsule, store: store, identity: identity, fetcher: fetcher, planner: planner,
        #     suspects: suspects, logger: logger, watch: landings, balanced: false)
        #   waits.arm(except)              # a fetch found the queues empty; `except`: queues not to wait on
        #   waits.take(wait, buffer)       # in a processor: a job its own wait brought, or nil
        #   waits.quiet                    # every wait ended
        class Waits
          # The landing list's lot of each of the capsule's queues (LandingLot).
          attr_reader :landing

          def initialize(capsule, store:, identity:, fetcher:, planner:, suspects:, logger:, watch:, balanced:, on_fatal: nil)
            @landing = capsule.queues.each_with_index.map { |q, i| LandingLot.new(q, i) }
            @own = ProcessorWaits.for(capsule, store: store, identity: identity, watch: watch, balanced: balanced, logger: logger)
            @waiters = IdleWaiters.new(capsule, store: store, identity: identity, fetcher: fetcher, logger: logger, on_fatal: on_fatal,
              watch: watch, covered: @own&.method(:covered?))
            @take = @own&.then { |own| ProcessorTake.new(own, landing: @landing, planner: planner, suspects: suspects, waiters: @waiters, logger: logger) }
          end

          def start = @waiters.start

          # A processor's own wait to pass to #take, or nil: this capsule's
          # processors do not wait in Redis (ProcessorWaits.for).
          def processor_wait = @own&.processor_wait

          # With the processor's own `wait`, while `ready` (the buffer) is
          # empty: the job the wait brought, or nil (take from the buffer).
          def take(wait, ready) = wait && @take.take(wait, ready)

          # A processor took `unit` from the buffer: its queue is not idle.
          def took(unit) = @own&.took(unit)

          # A fetch found the queues empty: waits on all but the indexes
          # `except` (paused, throttled, capped), processors' first.
          def arm(except) = @waiters.arm(except: except, covered: @own ? @own.arm(except) : [])

          # Queues paused: no wait stays on them.
          def disarm(indexes)
            @waiters.disarm(indexes)
            @own&.disarm(indexes)
          end

          # The queues' priority levels (Fetch::Sources#levels=).
          def levels=(by_queue)
            @waiters.levels = by_queue
          end

          # Ends every wait, processors' first, and waits for the waiter
          # threads: a wait still blocked would take a job handed back into
          # a quiet process's landing list.
          def quiet
            @own&.close
            @waiters.stop
            @waiters.join
          end

          def join = @waiters.join
        end
      end
    end
  end
end
