# frozen_string_literal: true

require_relative "server_internal"
require_relative "metrics_histogram"
require_relative "job_retry"
require "deckhand/store/records/execution_metrics"

module Sidekiq
  module Metrics
    # Sidekiq's per-job metrics recorder in drop-in mode, on what a Deckhand
    # server records with: executions timed into a Store::Records::ExecutionMetrics::Tally,
    # and each failure's error class, written on #flush as the heartbeat
    # writes them, so Sidekiq::Metrics::Query reads the executions and the
    # dashboard's failures by error class the failures. A server needs none
    # of this; code that times its own work can. An interrupted iterable job
    # (JobRetry::Skip) counts as no failure.
    #
    #   tracker = Sidekiq::Metrics::ExecutionTracker.new(Sidekiq.default_configuration)
    #   tracker.track("default", "ReportJob") { build_report }
    #   tracker.flush   # => 4, the fields of Sidekiq 8's metrics written (p and ms, in two hashes)
    class ExecutionTracker
      def initialize(config = Sidekiq.default_configuration)
        @config = Deckhand::DropIn::ServerInternal.config_of(config)
        @tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
      end

      def track(_queue, klass)
        started = mono_ms
        failed = false
        begin
          yield
        rescue JobRetry::Skip
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- any failure of the block is counted, then raised
          failed = true
          @tally.record_error(e.class.name || "(anonymous)")
          raise
        ensure
          @tally.record(klass.to_s, mono_ms - started, failed)
        end
      end

      # Writes what was tracked as the minute of `time`; returns how many
      # fields of Sidekiq's metrics it wrote, as Sidekiq's tracker does (in
      # the layout of the version drop-in mode stands in for). The failures
      # by error class are Deckhand's alone: no field of Sidekiq's.
      def flush(time = Time.now)
        taken = @tally.take
        Deckhand::Store::Records::ExecutionMetrics.write(@config.store, taken, now: time, errors: @tally.take_errors)
        layout = Deckhand::Store::Records::ExecutionMetrics::SIDEKIQ_LAYOUTS.fetch(Deckhand::DropIn.version.metrics_layout)
        taken.sum { |_, (count, failed)| Deckhand::Store::Records::ExecutionMetrics::SidekiqLayout.field_count(count, failed) } * layout::HASHES
      end

      private

      # The monotonic clock in ms, read at a job's start and end.
      def mono_ms = Deckhand::Monotonic.now * 1000
    end
  end
end
