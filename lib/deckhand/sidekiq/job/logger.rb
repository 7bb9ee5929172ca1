# frozen_string_literal: true

require_relative "../config/logger"

module Sidekiq
  # Sidekiq's job logger in drop-in mode, for code that logs around a job the
  # way Sidekiq's processor does: `prepare` puts the job's class and jid (and
  # the job's fields config[:logged_job_attributes] names: bid and tags
  # unless changed) in the log context and honours its `log_level` (on any
  # Logger as Sidekiq 8 does, with Logger#with_level; on one answering
  # log_at as 7.3 does), `call` logs start and done (or fail) with the
  # elapsed seconds. Deckhand's server logs its own done and fail lines; a
  # Sidekiq::JobLogger subclass cannot replace them (config[:job_logger]
  # raises Unsupported).
  #
  #   job_logger = Sidekiq::JobLogger.new(Sidekiq.default_configuration)
  #   job_logger.prepare(payload) { job_logger.call(payload, "default") { work } }
  class JobLogger
    def initialize(config)
      @config = config
      @logger = config.logger
      @skip = !!config[:skip_default_job_logging]
    end

    def call(_item, _queue)
      start = now
      @logger.info("start") unless @skip
      yield
      Context.add(:elapsed, elapsed(start))
      @logger.info("done") unless @skip
    rescue Exception # standard:disable Lint/RescueException
      Context.add(:elapsed, elapsed(start))
      @logger.info("fail") unless @skip
      raise
    end

    def prepare(job, &)
      fields = {class: job["display_class"] || job["wrapped"] || job["class"], jid: job["jid"]}
      Array(@config[:logged_job_attributes]).each { |name| fields[name.to_sym] = job[name] if job.key?(name) }
      Context.replace(fields)
      at_level(job["log_level"], &)
    ensure
      Context.replace(nil)
    end

    private

    def at_level(level, &)
      return yield unless level
      if Deckhand::DropIn.version.job_log_level_on_any_logger? && @logger.respond_to?(:with_level)
        @logger.with_level(level, &)
      elsif @logger.respond_to?(:log_at)
        @logger.log_at(level, &)
      else
        yield
      end
    end

    def now = Deckhand::Monotonic.now

    def elapsed(start) = (now - start).round(3)
  end
end
