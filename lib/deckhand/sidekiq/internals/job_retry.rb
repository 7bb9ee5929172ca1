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
  #   job_retry = Sidekiq::JobRetry.new(Sidekiq.default_configuration)
  #   job_retry.local(job, payload_json, "default") { job.perform(*args) }
  #   # => raises Sidekiq::JobRetry::Handled; the job is in Sidekiq::RetrySet
  class JobRetry
    # The error was dealt with (the job retried, dead or dropped).
    class Handled < ::RuntimeError; end

    # Stop without a retry consumed (an interrupted iterable job).
    class Skip < Handled; end

    # Sidekiq's number of retries for `retry: true`; plugins read it
    # (Deckhand's max_retries setting has the same default).
    DEFAULT_MAX_RETRY_ATTEMPTS = 25

    # A Sidekiq::Capsule, a Sidekiq::Config or a Deckhand::Config; anything
    # else (sidekiq-failures passes a Hash) means the default configuration,
    # as Sidekiq reads its settings from there.
    def initialize(capsule_or_config = Sidekiq.default_configuration)
      source = (capsule_or_config.respond_to?(:config) || capsule_or_config.is_a?(Deckhand::Config)) ? capsule_or_config : Sidekiq.default_configuration
      @config = Deckhand::DropIn::ServerInternal.config_of(source)
    end

    def local(job_instance, payload, queue)
      yield
    rescue Handled, Deckhand::Shutdown
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- Sidekiq retries any failure but the shutdown
      shutdown = shutdown_in(e)
      raise shutdown if shutdown
      # Raised inside the rescue, so the job's error is Handled's cause.
      process_retry(job_instance, parse(payload), queue, e)
      raise Handled
    end

    # The same for a failure outside the job instance (its class not yet
    # found): the rules of the class the payload names, if it is loaded.
    def global(payload, queue)
      yield
    rescue Handled, Deckhand::Shutdown
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- as #local
      shutdown = shutdown_in(e)
      raise shutdown if shutdown
      process_retry(nil, parse(payload), queue, e)
      raise Handled
    end

    private

    # A timestamp a fleet wrote (Integer milliseconds, Sidekiq 8; Float seconds, Sidekiq 7) as a Time.
    def time_for(value) = Deckhand::Payload.to_time(value)

    # A backtrace as Sidekiq stores it in error_backtrace (Deckhand's retries write the same).
    def compress_backtrace(lines) = Deckhand::Payload::Backtrace.compress(lines)

    # The retries a job's `retry` option allows: its number, else `default`
    # (plugins call it as Sidekiq's own helper).
    def retry_attempts_from(msg_retry, default) = msg_retry.is_a?(Integer) ? msg_retry : default

    # Deckhand's decision for the `count`th retry of a job of this class (or
    # instance): [:default, seconds], [:discard, nil] or [:kill, nil].
    def delay_for(job_class, count, error, job)
      Deckhand::DropIn::DirectRetry.new(@config).delay_for(job_class(job_class), count, error, job)
    end

    def exception_caused_by_shutdown?(error) = !shutdown_in(error).nil?

    # The job's outcome on Deckhand's retry handler (retry set, dead set,
    # sidekiq_retries_exhausted, death handlers), by the rules of its class
    # (the instance's, else the class the job names, if loaded).
    def process_retry(job_instance, job, queue, error)
      klass = job_instance ? job_class(job_instance) : loaded_class(job["class"])
      Deckhand::DropIn::DirectRetry.new(@config).failed(job, queue, klass, error)
    end

    # A copy of the job (its JSON, as Sidekiq passes it, or a Hash): the
    # failure's fields are written into it.
    def parse(payload) = JSON.parse(payload.is_a?(String) ? payload : JSON.generate(payload))

    # The job's class, given it or an instance.
    def job_class(job) = job.is_a?(Module) ? job : job.class

    def loaded_class(name)
      Object.const_get(name) if name.is_a?(String)
    rescue NameError
      nil
    end

    # The shutdown an error was raised while unwinding (in its causes), if
    # any: the job is not retried, it runs again.
    def shutdown_in(error, seen = {})
      return nil if error.nil? || seen[error]
      seen[error] = true
      error.is_a?(Deckhand::Shutdown) ? error : shutdown_in(error.cause, seen)
    end
  end
end
