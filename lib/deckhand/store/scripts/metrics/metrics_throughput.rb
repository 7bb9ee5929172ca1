# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs metrics_throughput.lua: the executions and failures of every
      # class added up per metrics hash, for the dashboard's throughput chart.
      #
      #   MetricsThroughput.new(store).call(keys)   # => [[40, 1], [0, 0], ...] one pair per hash
      class MetricsThroughput < Script # :nodoc:
        lua "metrics/metrics_throughput"

        # hashes: the period's metrics hashes, oldest first (Store::Records::ExecutionMetrics).
        def call(hashes)
          return [] if hashes.empty?
          run(hashes, []).map { |pair| pair.split(",", 2).map(&:to_i) }
        end
      end
    end
  end
end
