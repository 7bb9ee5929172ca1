# frozen_string_literal: true

require_relative "job_totals"

module Sidekiq
  module Metrics
    class RollupQuery
      # What Sidekiq 8's query returns: its granularity (:minutely or
      # :hourly, by 10 minutes), the period it covers and a JobResult per class.
      class RollupResult < Struct.new(:granularity, :starts_at, :ends_at, :size, :job_results, :marks)
        # A deploy mark in the period: its minute, its label, its bucket.
        Mark = Struct.new(:time, :label, :bucket)

        def initialize(granularity = :minutely)
          super
          self.granularity = granularity
          self.marks = []
          self.job_results = Hash.new { |results, name| results[name] = JobResult.new(granularity) }
        end
      end

      # One class's numbers: per metric, the total and a value per bucket;
      # per minute, the histogram's counters (the slowest first).
      class JobResult < Struct.new(:granularity, :series, :hist, :totals)
        include JobTotals

        def initialize(granularity = :minutely)
          super
          self.granularity = granularity
          self.series = Hash.new { |all, metric| all[metric] = Hash.new(0) }
          self.hist = Hash.new { |all, bucket| all[bucket] = [] }
          self.totals = Hash.new(0)
        end

        def add_hist(time, counts)
          hist[bucket_of(time)] = counts
        end

        # Average of a metric per successful execution, per bucket.
        def series_avg(metric = "ms")
          series[metric].each_with_object(Hash.new(0)) do |(bucket, value), averages|
            completed = series.fetch("p", {}).fetch(bucket, 0) - series.fetch("f", {}).fetch(bucket, 0)
            averages[bucket] = completed.zero? ? 0 : value.to_f / completed
          end
        end

        private

        def bucket_of(time) = RollupQuery.bkt_time_s(time, granularity)
      end
    end
  end
end
