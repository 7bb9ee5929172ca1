# frozen_string_literal: true

module Deckhand
  class API
    # Executions, failures and execution time of one job class over a span of
    # time (a whole period, or one point of a chart).
    #
    #   m = api.metrics(period: "24h").classes.first
    #   m.name        # => "ReportJob"
    #   m.count       # => 4_120 executions, m.failed of them failed
    #   m.average_ms  # => 1_250.0
    #   m.p95_ms      # => 3_100.0 (from the histogram, within about 15%)
    class ClassMetrics
      # timeline: executions at each point of the period (for a sparkline).
      attr_reader :name, :time, :count, :failed, :total_ms, :histogram, :timeline

      def initialize(name, time: nil)
        @name = name
        @time = time
        @count = 0
        @failed = 0
        @total_ms = 0.0
        @histogram = Hash.new(0)
        @timeline = []
      end

      # Adds one stored field's value ("c", "f", "ms" or histogram bucket).
      def add(kind, bucket, value)
        case kind
        when "c" then @count += value.to_i
        when "f" then @failed += value.to_i
        when "ms" then @total_ms += value.to_f
        when "h" then @histogram[bucket] += value.to_i
        end
      end

      def succeeded = @count - @failed

      def average_ms = @count.zero? ? 0.0 : @total_ms / @count

      def percentile_ms(p) = Store::ExecutionMetrics::Histogram.percentile(@histogram, p)

      def p50_ms = percentile_ms(0.5)

      def p95_ms = percentile_ms(0.95)

      def p99_ms = percentile_ms(0.99)

      def to_h
        {name: @name, time: @time&.to_i, count: @count, failed: @failed, total_ms: @total_ms.round(3),
         average_ms: average_ms.round(3), p50_ms: p50_ms&.round(3), p95_ms: p95_ms&.round(3), p99_ms: p99_ms&.round(3)}
      end
    end
  end
end
