# frozen_string_literal: true

module Sidekiq
  module Metrics
    # How a class's numbers add up, in both of Sidekiq's query results
    # (MinuteQuery::JobResult, by minute; RollupQuery::JobResult, by
    # minute or by 10 minutes): each metric's total and its value per
    # bucket (`bucket_of(time)`, the includer's), milliseconds counted in
    # seconds ("s") too. Failed executions count in "p" and in "f", so an
    # average is over the successful ones.
    #
    #   result = Sidekiq::Metrics::MinuteQuery::JobResult.new
    #   result.add_metric("p", Time.utc(2026, 11, 29, 10, 5), 4)
    #   result.add_metric("ms", Time.utc(2026, 11, 29, 10, 5), 2000)
    #   result.totals["s"]   # => 2.0
    #   result.total_avg     # => 500.0
    module JobTotals
      def add_metric(metric, time, value)
        totals[metric] += value
        series[metric][bucket_of(time)] += value
        add_metric("s", time, value / 1000.0) if metric == "ms"
      end

      # Average of a metric per successful execution, over the whole period.
      def total_avg(metric = "ms")
        completed = totals["p"] - totals["f"]
        completed.zero? ? 0 : totals[metric].to_f / completed
      end
    end
  end
end
