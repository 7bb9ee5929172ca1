# frozen_string_literal: true

require_relative "zset_numbers"

module Deckhand
  class Store
    module Scripts
      # Runs zset_window.lua: the scores of the entries from rank `first` to
      # `last` of sorted sets.
      #
      #   ZsetWindow.new(store).call_each([["{queue:mail}:retry", 100, 102]], reverse: false)
      #   # => [[1732000000.25, 1732000001.0, 1732000001.0]]
      class ZsetWindow < ZsetNumbers # :nodoc:
        lua "sets/zset_window", uses: ["zset"]

        private

        def arguments(first, last) = [first, last]

        def number(score) = Float(score)
      end
    end
  end
end
