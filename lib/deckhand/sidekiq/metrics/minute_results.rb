# frozen_string_literal: true

require_relative "job_totals"

module Sidekiq
  module Metrics
    class MinuteQuery
      # What a query returns: the minutes asked for ("HH:MM", oldest first)
      # and a JobResult per class.
      class Result < Struct.new(:starts_at, :ends_at, :size, :buckets, :job_results, :marks)
        def initialize
          super
          self.buckets = []
          self.marks = []
          self.size = 0
          self.job_results = Hash.new { |results, name| results[name] = JobResult.new }
        end

        def add_bucket(time)
          buckets << time.strftime("%H:%M")
          self.starts_at ||= time
          self.ends_at = time
          self.size += 1
        end
      end

      # One class's numbers: per metric, the total and a value per minute.
      class JobResult < Struct.new(:series, :hist, :totals)
        include JobTotals

        def initialize
          super
          self.series = Hash.new { |all, metric| all[metric] = Hash.new(0) }
          self.hist = {}
          self.totals = Hash.new(0)
        end

        # Average of a metric per successful execution, per minute.
        def series_avg(metric = "ms")
          series[metric].to_h do |bucket, value|
            completed = series["p"][bucket] - series.fetch("f", {}).fetch(bucket, 0)
            [bucket, completed.zero? ? 0 : value.to_f / completed]
          end
        end

        private

        def bucket_of(time) = time.strftime("%H:%M")
      end

      # A deploy mark in the period: its minute, its label, its bucket ("HH:MM").
      MarkResult = Struct.new(:time, :label) do
        def bucket = time.strftime("%H:%M")
      end
    end
  end
end
