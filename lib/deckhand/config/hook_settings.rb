# frozen_string_literal: true

require_relative "events"

module Deckhand
  class Config
    # Where user code hooks into what a server does: the handlers called on
    # deaths, errors and expired jobs, and the server's events
    # (Config::Events). Each is added before boot and frozen with the
    # configuration.
    #
    #   config.on_death { |job, error| Alerts.notify(job["class"], error) }
    #   config.on_error { |error, context| Bugsnag.notify(error, context) }
    #   config.events.on(:startup) { Metrics.connect }
    module HookSettings
      attr_reader :death_handlers, :error_handlers, :expired_handlers, :final_handlers, :cancel_handlers

      # Called with (payload_hash, exception) when a job goes to the dead set,
      # or is discarded once its retries are over with `dead: false`.
      def on_death(&block) = add_handler(death_handlers, block)

      # Called with (payload_hash, exception, :dead or :dropped) when a failed
      # job is out of retries (or had none), or is a poison pill, before that
      # outcome is written: what a handler records comes first, so a crash in
      # between tells it again rather than losing the news
      # (Deckhand::Workflow's steps). A job killed by hand is told after the
      # kill, in the process that killed it. A handler that must not miss one
      # waits out Redis failures itself; one told twice must change nothing.
      def on_final_failure(&block) = add_handler(final_handlers, block)

      # Whether a job discarded by its class once its retries are over
      # (deckhand_retries_exhausted or deckhand_retry_in returning
      # :discard) reaches the death handlers too, its "discarded_at" set
      # (Sidekiq 8's rule; false, the default, is Sidekiq 7's).
      #
      #   Deckhand::Config.new(death_handlers_on_discard: true)
      def death_handlers_on_discard=(value)
        change!(:death_handlers_on_discard)
        raise ConfigError, "death_handlers_on_discard must be true or false, got #{value.inspect}" unless [true, false].include?(value)
        @death_handlers_on_discard = value
      end

      # Called with (exception, context_hash) for errors outside job code and for job failures.
      def on_error(&block) = add_handler(error_handlers, block)

      # Called with (payload_hash) when a job is dropped unstarted because its
      # expires_in passed (docs/job-options.md).
      #
      #   config.on_expired { |job| StatsD.increment("jobs.expired", tags: ["class:#{job["class"]}"]) }
      def on_expired(&block) = add_handler(expired_handlers, block)

      # Called with (payload_hash, where) as Client.cancel takes a job out
      # ("queue", "schedule", "retry" or "dead"), in the process that
      # cancels it, just before it is taken (a crash in between tells it
      # again when the cancel is tried again); or ("running") in the server
      # that stopped it, before it is acknowledged (Deckhand::Workflow's
      # steps). One told twice must change nothing.
      #
      #   config.on_cancelled { |job, where| Audit.log("cancelled #{job["jid"]} from #{where}") }
      def on_cancelled(&block) = add_handler(cancel_handlers, block)

      # Blocks run at :startup, :quiet, :shutdown and :exit, and the server's own
      # notices (Config::Events).
      def events = @events ||= Events.new

      private

      def build_handlers
        @death_handlers = []
        @error_handlers = []
        @expired_handlers = []
        @final_handlers = []
        @cancel_handlers = []
      end

      def freeze_handlers
        @death_handlers.freeze
        @error_handlers.freeze
        @expired_handlers.freeze
        @final_handlers.freeze
        @cancel_handlers.freeze
        events.freeze
      end

      def add_handler(list, block)
        change!(:handlers)
        raise ArgumentError, "give a block" unless block
        list << block
      end
    end
  end
end
