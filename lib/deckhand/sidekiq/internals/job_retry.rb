# frozen_string_literal: true

require_relative "server_internal"
require_relative "direct_retry"

module Sidekiq
  # Sidekiq's retry step in drop-in mode. A Deckhand server retries failed
  # jobs itself; `#local` runs that same logic (Deckhand::DropIn::DirectRetry)
  # on a job run by other code: the block's error sends the job to the retry
  # set, or to the dead set with sidekiq_retries_exhausted and the death
  # handlers, then comes out wrapped in JobRetry::Handled (its `cause`).
  #
  #   retry = Sidekiq::JobRetry.new(Sidekiq.default_configuration)
  #   retry.local(job, payload_json, "default") { job.perform(*args) }
  #   # => raises Sidekiq::JobRetry::Handled; the job is in Sidekiq::RetrySet
  class JobRetry
    # The error was dealt with (the job retried, dead or dropped).
    class Handled < ::RuntimeError; end

    # Stop without a retry consumed (an interrupted iterable job).
    class Skip < Handled; end

    # A Sidekiq::Capsule, a Sidekiq::Config or a Deckhand::Config.
    def initialize(capsule_or_config = Sidekiq.default_configuration)
      config = capsule_or_config
      config = config.config until config.is_a?(Deckhand::Config)
      @config = config
    end

    def local(job_instance, payload, queue)
      yield
    rescue Handled, Deckhand::Shutdown
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- Sidekiq retries any failure but the shutdown
      raise if shutdown?(e)
      Deckhand::DropIn::DirectRetry.new(@config).failed(JSON.parse(payload), queue, job_instance.class, e)
      raise Handled
    end

    def global(*)
      raise Deckhand::DropIn::Unsupported.new("Sidekiq::JobRetry#global",
        "a Deckhand server records every failure of a job it runs itself; #local runs the same retry logic")
    end

    private

    # An error raised while the shutdown unwound the job: it runs again.
    def shutdown?(error, seen = {})
      return false if error.nil? || seen[error]
      seen[error] = true
      error.is_a?(Deckhand::Shutdown) || shutdown?(error.cause, seen)
    end
  end
end
