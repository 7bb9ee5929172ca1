# frozen_string_literal: true

require_relative "metrics"

module Deckhand
  class API
    # The fleet's jobs run and failed per minute (or per hour, over the
    # longer periods) from the per-class metrics the servers keep
    # (Store::Records::ExecutionMetrics, 72 hours of minutes and hours):
    # what the dashboard's throughput chart starts from before it goes live.
    # A Redis without metrics yet answers zeros, one per point.
    #
    # Two round trips: the classes that ran, from the day hashes of the
    # period (HKEYS of one to four small hashes), then each point's hash is
    # asked for those classes' "|c" and "|f" fields only (HMGET, inside
    # store/scripts/metrics/metrics_series.lua), not for every histogram
    # field a hash holds.
    #
    #   throughput = api.throughput(period: "1h")
    #   throughput.step        # => 60 (seconds per point)
    #   throughput.points      # => [[Time, processed, failed], ...] oldest first, the current minute last
    class Throughput
      # The periods it covers: a point a minute over the first two, an hour over the others.
      PERIODS = %w[1h 4h 24h 72h].freeze

      attr_reader :period, :step, :points

      def initialize(config, period: "1h", now: Time.at(config.store.clock.now))
        store = config.store
        metrics = Metrics.new(config, period: PERIODS.include?(period) ? period : "1h", now: now)
        @period = metrics.period
        @step = metrics.step
        days = metrics.times.map { |time| Store::Records::ExecutionMetrics.day_key(time, store.layout::METRICS) }.uniq
        fields = Store::Records::ExecutionMetrics.classes_in(store, days).flat_map { |klass| ["#{klass}|c", "#{klass}|f"] }
        counts = fields.empty? ? Array.new(metrics.keys.size, "") : Store::Scripts::MetricsSeries.new(store).call(metrics.keys, fields)
        @points = metrics.times.zip(counts).map { |time, row| [time, *sums(row)] }.freeze
      end

      # True when no job ran in the whole period (or none was recorded).
      def empty? = @points.all? { |_, processed, failed| processed.zero? && failed.zero? }

      private

      # A row is "position=value,..." over the fields asked for: odd
      # positions are executions ("|c"), even ones failures ("|f").
      def sums(row)
        row.split(",").each_with_object([0, 0]) do |pair, totals|
          index, value = pair.split("=", 2)
          totals[index.to_i.odd? ? 0 : 1] += value.to_i
        end
      end
    end
  end
end
