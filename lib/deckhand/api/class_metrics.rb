# frozen_string_literal: true

module Deckhand
  class API
    # Executions, failures and execution time of one job class over a span of
    # time (a whole period, or one point of a chart).
    #
    #   m = api.metrics(period: "24h").classes.first
    #   m.name        # => "ReportJob"
    #   m.count       # => 4_120 executions, m.failed of them failed
    #   m.average_ms  # => 1_250.0 (the successful executions, as every timing below)
    #   m.p95_ms      # => 3_100.0 (from the histogram, within about 15%)
    #   m.failed_p95_ms # => 40.0: the failures' own timings
    #
    # Successes and failures are timed apart, as Sidekiq's histograms time
    # successes only: a job that takes 2 s when it works and fails in 1 ms
    # shows p50 2 s, not 1 ms. Data written before failures were timed apart
    # holds every execution together; #split? is false where that is all
    # there is, and the success figures then count every execution.
    class ClassMetrics
      # timeline: executions at each point of the period (for a sparkline).
      attr_reader :name, :time, :count, :failed, :total_ms, :histogram, :failed_ms, :failed_histogram, :timeline

      def initialize(name, time: nil)
        @name = name
        @time = time
        @count = 0
        @failed = 0
        @total_ms = 0.0
        @failed_ms = 0.0
        @histogram = Hash.new(0)
        @failed_histogram = Hash.new(0)
        @timeline = []
      end

      # Adds one stored field's value ("c", "f", "ms", "fms" or a histogram bucket, "h" or "fh").
      def add(kind, bucket, value)
        @succeeded_histogram = nil
        case kind
        when "c" then @count += value.to_i
        when "f" then @failed += value.to_i
        when "ms" then @total_ms += value.to_f
        when "fms" then @failed_ms += value.to_f
        when "h" then @histogram[bucket] += value.to_i
        when "fh" then @failed_histogram[bucket] += value.to_i
        end
      end

      # Executions that did not fail.
      def succeeded = @count - @failed

      # True when the failures' timings are known (none failed, or they were
      # recorded apart), so the success figures hold successes only.
      def split? = @failed.zero? || @failed_histogram.any? { |_, n| n.positive? }

      # The successful executions' {bucket => n} (every execution's when not split?).
      def succeeded_histogram
        @succeeded_histogram ||= if split?
          @histogram.each_with_object({}) do |(bucket, n), out|
            left = n - @failed_histogram.fetch(bucket, 0)
            out[bucket] = left if left.positive?
          end
        else
          @histogram
        end
      end

      # Mean milliseconds of a successful execution, or nil without one.
      def average_ms
        return (@count.zero? ? 0.0 : @total_ms / @count) unless split?
        succeeded.zero? ? 0.0 : (@total_ms - @failed_ms) / succeeded
      end

      # Milliseconds within which the share `p` (0.0 to 1.0) of successful executions ended, from the histogram.
      def percentile_ms(p) = Store::Records::ExecutionMetrics::Histogram.percentile(succeeded_histogram, p)

      # Median milliseconds of a successful execution.
      def p50_ms = percentile_ms(0.5)

      # 95th percentile milliseconds of a successful execution.
      def p95_ms = percentile_ms(0.95)

      # 99th percentile milliseconds of a successful execution.
      def p99_ms = percentile_ms(0.99)

      # Mean milliseconds of a failed execution, or nil where failures are not timed apart.
      def failed_average_ms = (split? && @failed.positive?) ? @failed_ms / @failed : nil

      # As #percentile_ms, for failed executions.
      def failed_percentile_ms(p) = Store::Records::ExecutionMetrics::Histogram.percentile(@failed_histogram, p)

      # Median milliseconds of a failed execution.
      def failed_p50_ms = failed_percentile_ms(0.5)

      # 95th percentile milliseconds of a failed execution.
      def failed_p95_ms = failed_percentile_ms(0.95)

      # 99th percentile milliseconds of a failed execution.
      def failed_p99_ms = failed_percentile_ms(0.99)

      # The figures as a Hash, for JSON.
      def to_h
        {name: @name, time: @time&.to_i, count: @count, failed: @failed, total_ms: @total_ms.round(3),
         average_ms: average_ms.round(3), p50_ms: p50_ms&.round(3), p95_ms: p95_ms&.round(3), p99_ms: p99_ms&.round(3),
         split: split?, failed_ms: @failed_ms.round(3), failed_average_ms: failed_average_ms&.round(3),
         failed_p50_ms: failed_p50_ms&.round(3), failed_p95_ms: failed_p95_ms&.round(3), failed_p99_ms: failed_p99_ms&.round(3)}
      end
    end
  end
end
