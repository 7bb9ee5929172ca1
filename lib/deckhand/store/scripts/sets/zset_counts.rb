# frozen_string_literal: true

require_relative "zset_numbers"

module Deckhand
  class Store
    module Scripts
      # Runs zset_counts.lua: how many entries of sorted sets come before
      # each of several score bounds ("(" in front leaves out that score's
      # own entries).
      #
      #   ZsetCounts.new(store).call_each([["{queue:mail}:retry", ["1000", "(1732000000.5"]]], reverse: false)
      #   # => [[120, 4_000]]
      class ZsetCounts < ZsetNumbers # :nodoc:
        lua "sets/zset_counts"

        private

        def arguments(bounds) = [bounds.join(" ")]

        def number(count) = count.to_i
      end
    end
  end
end
