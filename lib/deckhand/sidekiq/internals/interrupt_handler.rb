# frozen_string_literal: true

require_relative "job_retry"

module Sidekiq
  module Job
    # Raised by an iterable job that stopped between two steps (the server
    # stopping, or max_iteration_runtime used), its cursor saved.
    Interrupted = Deckhand::Interrupted

    # Sidekiq's server middleware for an interrupted iterable job, for code
    # that runs jobs itself: the job goes back to its queue, then
    # JobRetry::Skip says no retry was used. Inside a `deckhand` server the
    # interruption passes through instead: the server puts the job back
    # itself, in the same step as it lets go of it, so it is never in two
    # places (the chain of a Deckhand server needs no such middleware).
    #
    #   handler = Sidekiq::Job::InterruptHandler.new
    #   handler.call(job, payload, "default") { job.perform }   # interrupted: pushed again, raises JobRetry::Skip
    class InterruptHandler
      include Sidekiq::ServerMiddleware

      def call(_instance, payload, _queue)
        yield
      rescue Interrupted
        raise if Sidekiq.server?
        logger.debug("Interrupted, re-queueing...")
        Sidekiq::Client.new.push(payload)
        raise Sidekiq::JobRetry::Skip
      end
    end
  end
end
