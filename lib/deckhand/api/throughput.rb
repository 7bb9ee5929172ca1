# frozen_string_literal: true

require_relative "metrics"
require_relative "../store/scripts/metrics/metrics_throughput"

module Deckhand
  class API
    # The fleet's jobs run and failed per minute (or per hour, over the
    # longer periods) from the per-class metrics the servers keep
    # (Store::Records::ExecutionMetrics, 72 hours of minutes and hours):
    # what the dashboard's throughput chart starts from before it goes live.
    # A Redis without metrics yet answers zeros, one per point.
    #
    #   throughput = api.throughput(period: "1h")
    #   throughput.step        # => 60 (seconds per point)
    #   throughput.points      # => [[Time, processed, failed], ...] oldest first, the current minute last
    class Throughput
      PERIODS = %w[1h 4h 24h 72h].freeze

      attr_reader :period, :step, :points

      def initialize(config, period: "1h", now: Time.at(config.store.clock.now))
        metrics = Metrics.new(config, period: PERIODS.include?(period) ? period : "1h", now: now)
        @period = metrics.period
        @step = metrics.step
        counts = Store::Scripts::MetricsThroughput.new(config.store).call(metrics.keys)
        @points = metrics.times.zip(counts).map { |time, (processed, failed)| [time, processed, failed] }.freeze
      end

      # True when no job ran in the whole period (or none was recorded).
      def empty? = @points.all? { |_, processed, failed| processed.zero? && failed.zero? }
    end
  end
end
