# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # Warns that Redis refused to name a queue's priority level in its set
      # of levels (Jobs::PriorityPushes) while the push's jobs were written:
      # the push succeeded, but no server fetches the jobs of a level it does
      # not know of until the key is fixed and a push names the level again.
      # Once a minute at most per store, as Jobs::ListingWarning does, so a
      # stream of pushes does not flood the log.
      #
      #   store.level_warning.refused(outcome.unregistered, config.logger)
      class LevelWarning # :nodoc:
        EVERY = 60.0

        def initialize
          @lock = Mutex.new
          @last = nil
        end

        # refusal: the Deckhand::RedisError of the SADD. Logs to `logger`, or
        # to standard error when there is none.
        def refused(refusal, logger)
          return unless due?
          message = "jobs with a priority were queued, but Redis refused to name their level in the queue's set of levels: " \
            "#{refusal.message}. The push succeeded (do not push them again); no server fetches them until the key holds " \
            "a set: `redis-cli TYPE` the key, then RENAME or DEL it, and the next push with that priority names the level again"
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
