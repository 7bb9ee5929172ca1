# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # Reclaims the lots of fetches whose reply was lost. A fetch that fails
      # after Redis ran it (the connection dropped on the way back) leaves lots in
      # this live process's in-flight record that no thread knows about; the
      # reaper never touches a live process, so they would wait for its shutdown.
      # Their ids are known, though: each source of the fetch had its lot id.
      # Once Redis answers again (and a moment has passed, so the lost call
      # cannot still be on its way), those lots go back to the front of their
      # queues. Ids that were never used are skipped.
      #
      #   lost = LostFetches.new(requeue)
      #   lost.lots([[0, 42], [1, 43]])      # [queue index, lot id] of a failed fetch
      #   lost.reclaim if lost.due?          # => number of jobs handed back
      class LostFetches
        SETTLE = 1.0

        def initialize(requeue, logger: nil)
          @requeue = requeue
          @logger = logger
          @pending = [] # [[[queue index, lot id], ...], due at]
        end

        def lots(pairs)
          @pending << [pairs, Monotonic.now + SETTLE] unless pairs.empty?
        end

        def any? = !@pending.empty?

        def due? = any? && @pending.first[1] <= Monotonic.now

        # Seconds until the oldest may be reclaimed; nil when none waits.
        def wait_time = any? ? [@pending.first[1] - Monotonic.now, 0].max : nil

        # Raises the Deckhand::RedisError when Redis is still away; the lots then wait.
        def reclaim
          due, @pending = @pending.partition { |_, at| at <= Monotonic.now }
          count = @requeue.lots(due.flat_map(&:first))
          @logger&.warn("handed back #{count} jobs fetched by a round trip whose reply was lost") if count.positive?
          count
        rescue Deckhand::RedisError
          @pending = due + @pending
          raise
        end
      end
    end
  end
end
