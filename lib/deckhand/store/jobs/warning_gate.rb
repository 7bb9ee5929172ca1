# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # Logs a warning about a push that succeeded all the same at most once
      # a minute, however many threads push: a stream of pushes that meets
      # the same refusal names it once, not once a push (Jobs::ListingWarning,
      # Jobs::LevelWarning). The message is built only when it is logged.
      #
      #   gate = WarningGate.new
      #   gate.log(logger) { "the set of queue names refused ..." }  # logged
      #   gate.log(logger) { "the set of queue names refused ..." }  # not within the minute
      class WarningGate # :nodoc:
        EVERY = 60.0

        def initialize
          @lock = Mutex.new
          @last = nil
        end

        # To `logger`, or to standard error when there is none.
        def log(logger)
          return unless due?
          message = yield
          logger ? logger.warn(message) : Kernel.warn("Deckhand: #{message}")
        end

        private

        def due?
          now = Monotonic.now
          @lock.synchronize do
            return false if @last && now - @last < EVERY
            @last = now
          end
          true
        end
      end
    end
  end
end
