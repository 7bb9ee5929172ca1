# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs metrics_series.lua: the set fields among `fields` of each metrics
      # hash, one short string per hash.
      #
      #   MetricsSeries.new(store).call(keys, ["ReportJob|c", "ReportJob|ms"])
      #   # => ["1=4,2=120.5", "", ...] (1-based field position = value)
      class MetricsSeries < Script
        lua "metrics_series"

        def call(hashes, fields) = run(hashes, fields)
      end
    end
  end
end
