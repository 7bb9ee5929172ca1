# frozen_string_literal: true

require "json"
require_relative "../server/outage"

module Deckhand
  class Batch
    # Records a batch job's outcome on the server. Each call is one atomic
    # script run, idempotent per jid: a job that runs twice is counted once.
    #
    # A death is recorded before the dead set is written (a final-failure
    # handler, Config#on_final_failure), as a success is before the job is
    # acknowledged: a process killed in between leaves the job in its
    # in-flight record, so it runs again once recovered and either dies
    # again (the death counted once) or succeeds (the success takes the
    # death back). Recorded after, as a death handler, a kill in between
    # would leave the job dead and its batch never told.
    class Tracker # :nodoc:
      MAX_MESSAGE = 1_000

      # Waits out Redis failures as Server::Outage says (a refusal that needs
      # a human is logged with its fix every minute): the job stays in flight
      # meanwhile, and a shutdown interrupts the wait and hands it back.
      def self.persist(config, what, &) = Server::Outage.wait_out(config.logger, what, &)

      def initialize(config)
        @config = config
      end

      # Returns true when this call counted the job (false: counted before).
      def success(bid, jid) = Ops.script(@config).success(bid, jid) == 1

      # The job raised and will retry (or was dropped): it has run once.
      def failure(bid, job, error) = Ops.script(@config).failure(bid, job["jid"], info(job, error)) == 1

      # The job ran out of retries: true when this call counted its death
      # (false: counted before, or not a batch's job).
      def death(job, error)
        bid = job["bid"] or return false
        Ops.script(@config).death(bid, job["jid"], info(job, error)) == 1
      end

      # A final-failure handler: outcome :dead, or :dropped (a death only
      # when the death handlers hear of it too, its "discarded_at" set:
      # dead: false, or a discard with death_handlers_on_discard), recorded
      # before the outcome is written.
      def final(job, error, outcome)
        return false unless job["bid"]
        return false unless outcome == :dead || job["discarded_at"]
        self.class.persist(@config, "recording a batch job's death") { death(job, error) }
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
