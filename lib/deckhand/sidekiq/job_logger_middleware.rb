# frozen_string_literal: true

module Deckhand
  module DropIn
    # The server middleware that runs a custom job logger (Sidekiq's
    # config[:job_logger]) around each job, outermost, as Sidekiq's
    # processor runs its job logger: `prepare` (the log context, the job's
    # log_level), then `call` (its start, done and fail lines). Built per
    # job, the logger too: an instance never sees two jobs at once.
    #
    #   chain.prepend(JobLoggerMiddleware, AuditJobLogger, Sidekiq.default_configuration)
    class JobLoggerMiddleware
      def initialize(logger_class, config)
        @job_logger = logger_class.new(config)
      end

      def call(_job, payload, queue, &)
        @job_logger.prepare(payload) { @job_logger.call(payload, queue, &) }
      end
    end
  end
end
