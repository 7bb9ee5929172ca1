# frozen_string_literal: true

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
        def initialize
          super
          self.series = Hash.new { |all, metric| all[metric] = Hash.new(0) }
          self.hist = {}
          self.totals = Hash.new(0)
        end

        def add_metric(metric, time, value)
          totals[metric] += value
          series[metric][time.strftime("%H:%M")] += value
          add_metric("s", time, value / 1000.0) if metric == "ms"
        end

        # Average of a metric per successful execution, overall or per minute.
        def total_avg(metric = "ms")
          completed = totals["p"] - totals["f"]
          completed.zero? ? 0 : totals[metric].to_f / completed
        end

        def series_avg(metric = "ms")
          series[metric].to_h do |bucket, value|
            completed = series["p"][bucket] - series.fetch("f", {}).fetch(bucket, 0)
            [bucket, completed.zero? ? 0 : value.to_f / completed]
          end
        end
      end

      # A deploy mark in the period: its minute, its label, its bucket ("HH:MM").
      MarkResult = Struct.new(:time, :label) do
        def bucket = time.strftime("%H:%M")
      end
    end
  end
end
