# frozen_string_literal: true

require_relative "job_retry"

module Sidekiq
  module Job
    # What an interrupted iterable job raises (Deckhand's interruption).
    Interrupted = Deckhand::Interrupted unless const_defined?(:Interrupted, false)

    # Sidekiq's server middleware that puts an interrupted iterable job
    # back in its queue (same jid: it resumes from its saved cursor) and
    # ends its run without a retry (JobRetry::Skip), for jobs run outside a
    # Deckhand server: Sidekiq::Processor runs it around every job. Inside a
    # Deckhand server it stands aside: the server resumes an interrupted
    # job itself, through the schedule, from its in-flight record.
    #
    #   handler = Sidekiq::Job::InterruptHandler.new
    #   handler.call(job, payload, "default") { job.perform }   # => raises JobRetry::Skip once requeued
    class InterruptHandler
      include Sidekiq::ServerMiddleware

      def call(_job, payload, _queue)
        yield
      rescue Deckhand::Interrupted
        raise if Thread.current[:deckhand_job]
        logger.debug("Interrupted, re-queueing...")
        Sidekiq::Client.new.push(payload)
        raise Sidekiq::JobRetry::Skip
      end
    end
  end
end
