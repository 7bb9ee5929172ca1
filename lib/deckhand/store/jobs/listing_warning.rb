# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # Warns that the set of queue names refused a push's SADD (a key of the
      # wrong type, most often) while the push's jobs were written: the push
      # succeeded and its jobs run, but the dashboard's list of queues (and in
      # cluster mode, the scheduler's look for a queue no server works) misses
      # the queue until the key is fixed. Once a minute at most per store, so a
      # stream of pushes does not flood the log.
      #
      #   store.listing_warning.refused(outcome.unlisted, config.logger)
      class ListingWarning # :nodoc:
        def initialize(key)
          @key = key
          @gate = WarningGate.new
        end

        # refusal: the Deckhand::RedisError of the SADD, or what was found
        # instead of a set; what: the jobs that were queued all the same. Logs
        # to `logger`, or to standard error when there is none.
        def refused(refusal, logger, what: "a push's jobs")
          @gate.log(logger) { message(refusal, what) }
        end

        private

        def message(refusal, what)
          detail = refusal.respond_to?(:message) ? refusal.message : refusal
          # A String is what the scheduler found instead of a set; a refusal
          # without a code is a passing one (CLUSTERDOWN in a failover).
          wrong_type = refusal.respond_to?(:code) ? refusal.code == "WRONGTYPE" : refusal.is_a?(String)
          message = "#{what} were queued, but Redis refused to list their queue in the set of queue names " \
            "(key #{@key.inspect}): #{detail}. The jobs run#{" (the push succeeded: do not push them again)" if what == "a push's jobs"}; "
          message << if wrong_type
            "until the key holds a set, the dashboard's list of queues misses new queues. Fix: `redis-cli TYPE #{@key}`, " \
              "then RENAME or DEL it (queues are listed again as jobs reach them)"
          else
            "the next pushes to the queue list it once Redis takes writes to that key again"
          end
        end
      end
    end
  end
end
