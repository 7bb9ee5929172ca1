# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_counts.lua: ZCOUNT over several score ranges of one sorted
      # set in one call; one call per set (cluster mode's shards, each in its
      # own slot), pipelined.
      #
      #   ZsetCounts.new(store).call_each([["{queue:mail}:retry", [["-inf", "1000"], ["(5", "+inf"]]]])
      #   # => [[120, 40]]
      class ZsetCounts < Script
        lua "zset_counts"

        def call_each(sets) = run_pipelined(sets.map { |set, ranges| [[set], ranges.flatten] })
      end
    end
  end
end
