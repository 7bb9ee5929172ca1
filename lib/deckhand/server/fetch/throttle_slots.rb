# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # The queue throttles as one capsule's fetcher sees them: which of its
      # queues are throttled now (idle waiters leave those to fetches, which
      # ask the throttle), the throttle arguments of the next fetch with the
      # slots its settled jobs give back, and when a throttle that held jobs
      # back may let one leave. The fetcher calls it under its own lock.
      #
      #   slots = ThrottleSlots.new(throttles, %w[default exports])
      #   slots.args(ledger)          # => [[1, #<Limit concurrency=2>, 3]] or nil
      #   slots.held_back(250, now)   # the fetch said: one may leave in 250 ms
      #   slots.due?(now + 0.3)       # => true
      class ThrottleSlots
        # Indexes of the capsule's queues throttled at the last fetch.
        attr_reader :throttled

        def initialize(throttles, queues)
          @throttles = throttles
          @queues = queues
          @throttled = []
          @look_at = nil
        end

        # [queue index, limit, slots to give back] per throttled queue of the
        # capsule, or nil when none is (the fetch is then exactly as without
        # throttles). Takes the settled jobs' slots from `ledger`: a round
        # trip that fails gives them back with #restore.
        def args(ledger)
          limits = @throttles&.limits
          args = (limits.nil? || limits.empty?) ? [] : throttled_args(limits)
          @throttled = args.map(&:first)
          if args.empty?
            @look_at = nil
            return nil
          end
          released = ledger.take_released
          args.each { |arg| arg << released[arg.first] }
        end

        def restore(args, ledger) = args&.each { |index, _, back| ledger.restore_released(index, back) }

        # A throttled fetch held jobs back: one may leave in `wait_ms`.
        def held_back(wait_ms, now) = @look_at = wait_ms.positive? ? now + (wait_ms / 1000.0) : nil

        # A job settled, so a slot came free: worth looking again at once.
        def freed(now) = @look_at &&= now

        def due?(now) = !@look_at.nil? && now >= @look_at

        # Seconds until a held-back job may leave, or nil.
        def wait(now) = @look_at && [@look_at - now, 0.001].max

        private

        def throttled_args(limits) = @queues.each_with_index.filter_map { |queue, index| (limit = limits[queue]) && [index, limit] }
      end
    end
  end
end
