# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_window.lua: the scores of the entries from rank `first` to
      # `last` of sorted sets, one call per set (cluster mode's shards, each in
      # its own slot), pipelined.
      #
      #   ZsetWindow.new(store).call_each([["{queue:mail}:retry", 100, 102]], reverse: false)
      #   # => [[1732000000.25, 1732000001.0, 1732000001.0]]
      class ZsetWindow < Script # :nodoc:
        lua "sets/zset_window", uses: ["zset"]

        def call_each(sets, reverse:)
          flag = reverse ? "1" : "0"
          run_pipelined(sets.map { |set, first, last| [[set], [flag, first, last]] })
            .map { |scores| scores.split.map { |score| Float(score) } }
        end
      end
    end
  end
end
