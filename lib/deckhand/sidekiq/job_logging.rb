# frozen_string_literal: true

require_relative "job_logger_middleware"

module Deckhand
  module DropIn
    # Sidekiq's config[:job_logger] and config[:skip_default_job_logging] on
    # a Deckhand server. A job logger class (Sidekiq::JobLogger or a
    # subclass: `new(config)`, `prepare(job) { }`, `call(job, queue) { }`)
    # runs around each job as the outermost server middleware, put there
    # when the server boots, and its lines stand in for the server's own
    # done and fail lines (job_log_lines), as Sidekiq's custom job logger
    # replaces its default one; skip_default_job_logging turns those off.
    #
    #   JobLogging.choose(Deckhand.config, AuditJobLogger, Sidekiq.default_configuration)
    #   JobLogging.skip(Deckhand.config, true)
    module JobLogging
      Choice = Struct.new(:logger_class, :sidekiq_config, :skip)
      private_constant :Choice

      class << self
        # logger_class nil: the server's own lines, no middleware.
        def choose(config, logger_class, sidekiq_config)
          check!(logger_class)
          update(config) do |choice|
            choice.logger_class = logger_class
            choice.sidekiq_config = sidekiq_config
          end
        end

        def skip(config, skip) = update(config) { |choice| choice.skip = skip ? true : false }

        # Config.on_boot: the middleware, first in every chain the server runs.
        def install(config)
          choice = choice(config)
          return unless choice.logger_class
          chains = [config.server_middleware, *config.capsules.values.filter_map(&:server_middleware)]
          chains.each { |chain| chain.prepend(JobLoggerMiddleware, choice.logger_class, choice.sidekiq_config) }
        end

        private

        # On the configuration itself: a weak map would let the choice be
        # collected before the server boots, and the logger be left out.
        def choice(config) = config.attachment(:dropin_job_logger) { Choice.new(nil, nil, false) }

        def update(config)
          choice = choice(config)
          yield choice
          config.job_log_lines = choice.logger_class.nil? && !choice.skip
        end

        def check!(logger_class)
          return if logger_class.nil?
          return if logger_class.is_a?(Class) && logger_class.method_defined?(:prepare) && logger_class.method_defined?(:call)
          raise ArgumentError, "config[:job_logger] takes a job logger class: Sidekiq::JobLogger or a subclass of it " \
            "(new(config), prepare(job) { }, call(job, queue) { }), got #{logger_class.inspect}"
        end
      end

      Deckhand::Config.on_boot { |config| install(config) }
    end
  end
end
