# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_counts.lua: how many entries of a sorted set come before
      # each of several score bounds ("(" in front leaves out that score's
      # own entries), in one call per set (cluster mode's shards, each in its
      # own slot), pipelined.
      #
      #   ZsetCounts.new(store).call_each([["{queue:mail}:retry", ["1000", "(1732000000.5"]]], reverse: false)
      #   # => [[120, 4_000]]
      class ZsetCounts < Script # :nodoc:
        lua "sets/zset_counts"

        def call_each(sets, reverse:)
          flag = reverse ? "1" : "0"
          run_pipelined(sets.map { |set, bounds| [[set], [flag, bounds.join(" ")]] }).map { |counts| counts.split.map(&:to_i) }
        end
      end
    end
  end
end
