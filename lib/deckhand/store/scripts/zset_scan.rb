# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_scan.lua: a bounded search of a sorted set for entries that
      # contain a text.
      #
      #   ZsetScan.new(store).call("dead", "Timeout", from: 0, limit: 25, budget: 20_000, reverse: true)
      #   # => [next rank or -1, rank, entry, score, rank, entry, score, ...]
      class ZsetScan < Script
        lua "zset_scan", uses: ["zset"]

        def call(set, text, from:, limit:, budget:, reverse: false)
          run([set], [text, from, limit, budget, reverse ? "rev" : "fwd"])
        end
      end
    end
  end
end
