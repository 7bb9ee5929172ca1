# frozen_string_literal: true

require "json"

module Deckhand
  class Batch
    # Records a batch job's outcome on the server. Each call is one atomic
    # script run, idempotent per jid: a job that runs twice is counted once.
    class Tracker # :nodoc:
      MAX_MESSAGE = 1_000

      def initialize(config)
        @config = config
      end

      # Returns true when this call counted the job (false: counted before).
      def success(bid, jid) = Ops.script(@config).success(bid, jid) == 1

      # The job raised and will retry (or was dropped): it has run once.
      def failure(bid, job, error) = Ops.script(@config).failure(bid, job["jid"], info(job, error)) == 1

      # Called as a death handler: the job ran out of retries.
      def death(job, error)
        bid = job["bid"] or return false
        Ops.script(@config).death(bid, job["jid"], info(job, error)) == 1
      end

      private

      def info(job, error)
        JSON.generate({
          "class" => job["class"], "error_class" => error.class.name,
          "error_message" => error.message.to_s.scrub[0, MAX_MESSAGE],
          "failed_at" => @config.store.clock.now_ms,
          "retry_count" => job["retry_count"]
        })
      end
    end
  end
end
