# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs metrics_totals.lua: the per-class metrics hashes of a period
      # summed inside Redis.
      #
      #   sums, lines = MetricsTotals.new(store).call(keys)
      #   sums    # => ["ReportJob|c", "12", "ReportJob|ms", "340.5", ...]
      #   lines   # => ["ReportJob", "0,4,8", ...] executions per hash
      class MetricsTotals < Script # :nodoc:
        lua "metrics/metrics_totals"

        # hashes: the period's metrics hashes, oldest first (Store::Records::ExecutionMetrics).
        def call(hashes) = run(hashes, [])
      end
    end
  end
end
