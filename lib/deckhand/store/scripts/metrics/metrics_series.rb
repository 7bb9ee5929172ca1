# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs metrics_series.lua: the set fields among `fields` of each metrics
      # hash, one short string per hash; `guarded` fields are read only where
      # the `gate` field and each one's guard are set.
      #
      #   MetricsSeries.new(store).call(keys, ["ReportJob|c", "ReportJob|ms"])
      #   # => ["1=4,2=120.5", "", ...] (1-based field position = value)
      #   MetricsSeries.new(store).call(keys, ["J|c", "J|f", "J|h3"], gate: 2, guarded: [[3, "J|fh3"]])
      #   # => ["1=4,2=1,3=4,4=1", ...] (J|fh3 at position 4, read where J|f and J|h3 are set)
      class MetricsSeries < Script # :nodoc:
        lua "metrics/metrics_series"

        # gate, guards: 1-based positions in `fields` (gate 0: no guarded reads).
        def call(hashes, fields, gate: 0, guarded: [])
          run(hashes, [fields.size, *fields, gate, *guarded.flatten])
        end
      end
    end
  end
end
