# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_kill.lua: entries of the schedule or retry set to the dead
      # set, each only if this call removed it, trimming the dead set.
      #
      #   ZsetKill.new(store).call("retry", [raw], now: now, dead_before: now - 180 * 86_400, max_jobs: 10_000)
      #   # => [1] (1-based positions, in raws, of the entries moved)
      class ZsetKill < Script
        lua "zset_kill"

        def call(set, raws, now:, dead_before:, max_jobs:)
          run([set, keys::DEAD], [SortedSets.score_string(now), SortedSets.score_string(dead_before), max_jobs, *raws])
        end
      end
    end
  end
end
