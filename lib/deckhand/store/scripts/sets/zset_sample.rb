# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_sample.lua on each shard of a set (one call per shard, each
      # in its own slot), pipelined: each shard's size and `samples` entries'
      # scores spread over the ranks that can come before merged rank `rank`,
      # the shards' grids staggered so their samples fall between each other.
      #
      #   ZsetSample.new(store).call_each(["{queue:a}:retry", "{queue:b}:retry"], rank: 900, samples: 2, reverse: false)
      #   # => [[1_000, [[0, 5.0], [450, 980.5]]], [40, [[10, 31.0], [30, 99.0]]]]
      class ZsetSample < Script # :nodoc:
        lua "sets/zset_sample", uses: ["zset"]

        def call_each(sets, rank:, samples:, reverse:)
          flag = reverse ? "1" : "0"
          calls = sets.each_with_index.map { |set, i| [[set], [flag, rank, samples, (i + 0.5) / sets.size]] }
          run_pipelined(calls).map do |size, found|
            [size, found.split.each_slice(2).map { |at, score| [Integer(at), Float(score)] }]
          end
        end
      end
    end
  end
end
