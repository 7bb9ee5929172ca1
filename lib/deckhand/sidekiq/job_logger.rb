# frozen_string_literal: true

require_relative "logger"

module Sidekiq
  # Sidekiq's job logger in drop-in mode, for code that logs around a job the
  # way Sidekiq's processor does: `prepare` puts the job's class and jid (and
  # bid, tags) in the log context and honours its `log_level`, `call` logs
  # start and done (or fail) with the elapsed seconds. Deckhand's server logs
  # its own done and fail lines; a Sidekiq::JobLogger subclass cannot replace
  # them (config[:job_logger] raises Unsupported).
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

    def prepare(job)
      fields = {class: job["display_class"] || job["wrapped"] || job["class"], jid: job["jid"]}
      fields[:bid] = job["bid"] if job.key?("bid")
      fields[:tags] = job["tags"] if job.key?("tags")
      Context.replace(fields)
      level = job["log_level"]
      (level && @logger.respond_to?(:log_at)) ? @logger.log_at(level) { yield } : yield
    ensure
      Context.replace(nil)
    end

    private

    def now = Deckhand::Monotonic.now

    def elapsed(start) = (now - start).round(3)
  end
end
