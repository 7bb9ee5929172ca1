# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # Warns that Redis refused to name a queue's priority level in its set
      # of levels (Jobs::PriorityPushes) while the push's jobs were written:
      # the push succeeded, but no server fetches the jobs of a level it does
      # not know of until the key is fixed and a push names the level again.
      # Once a minute at most per store (Jobs::WarningGate), so a
      # stream of pushes does not flood the log.
      #
      #   store.level_warning.refused(outcome.unregistered, config.logger)
      class LevelWarning # :nodoc:
        def initialize
          @gate = WarningGate.new
        end

        # refusal: the Deckhand::RedisError of the SADD. Logs to `logger`, or
        # to standard error when there is none.
        def refused(refusal, logger)
          @gate.log(logger) do
            "jobs with a priority were queued, but Redis refused to name their level in the queue's set of levels: " \
              "#{refusal.message}. The push succeeded (do not push them again); no server fetches them until the key holds " \
              "a set: `redis-cli TYPE` the key, then RENAME or DEL it, and the next push with that priority names the level again"
          end
        end
      end
    end
  end
end
