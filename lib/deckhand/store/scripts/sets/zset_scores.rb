# frozen_string_literal: true

require_relative "zset_numbers"

module Deckhand
  class Store
    module Scripts
      # Runs zset_scores.lua: the scores at some ranks of sorted sets.
      #
      #   ZsetScores.new(store).call_each([["{queue:mail}:retry", [10, 500]]], reverse: false)
      #   # => [[1732000000.25, nil]]   (nil: past the end of the set)
      class ZsetScores < ZsetNumbers # :nodoc:
        lua "sets/zset_scores", uses: ["zset"]

        private

        def arguments(ranks) = [ranks.join(" ")]

        def number(score) = (Float(score) unless score == "-")
      end
    end
  end
end
