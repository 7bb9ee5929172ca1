# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_count.lua: counts a sorted set's entries that contain a text
      # (or every text of an Array), examining at most `budget` entries from
      # rank `from`. Order does not matter for a count, so it always reads
      # lowest score first.
      #
      #   ZsetCount.new(store).call("retry", "Timeout", from: 0, budget: 20_000)
      #   # => [next rank or -1, matches]
      class ZsetCount < Script # :nodoc:
        lua "sets/zset_count", uses: ["match"]

        def call(set, text, from:, budget:) = run([set], argv(text, from, budget))

        # One count per [set, text, from, budget], pipelined (cluster mode's
        # shards); one [next rank or -1, matches] each.
        def call_each(counts) = run_pipelined(counts.map { |set, text, from, budget| [[set], argv(text, from, budget)] })

        private

        def argv(text, from, budget)
          first, *more = Array(text)
          [first, from, budget, *more]
        end
      end
    end
  end
end
