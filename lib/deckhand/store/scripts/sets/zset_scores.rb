# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_scores.lua: the scores at some ranks of sorted sets, one
      # call per set (cluster mode's shards, each in its own slot), pipelined.
      #
      #   ZsetScores.new(store).call_each([["{queue:mail}:retry", [10, 500]]], reverse: false)
      #   # => [[1732000000.25, nil]]   (nil: past the end of the set)
      class ZsetScores < Script # :nodoc:
        lua "sets/zset_scores", uses: ["zset"]

        def call_each(sets, reverse:)
          flag = reverse ? "1" : "0"
          run_pipelined(sets.map { |set, ranks| [[set], [flag, ranks.join(" ")]] })
            .map { |scores| scores.split.map { |score| Float(score) unless score == "-" } }
        end
      end
    end
  end
end
