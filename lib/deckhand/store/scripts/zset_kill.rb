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
        lua "zset_kill", uses: ["unique"]

        # locks: per raw, [key, jid] of the unique lock it holds, or nil
        # (a death releases it). dead: the dead set, in cluster mode that of
        # the set's queue (store.keys.dead_set(queue), the same slot).
        def call(set, raws, now:, dead_before:, max_jobs:, locks: [], dead: nil)
          held = raws.each_index.map { |i| locks[i] }
          run([set, dead || keys::DEAD, *held.compact.map(&:first)],
            [SortedSets.score_string(now), SortedSets.score_string(dead_before), max_jobs, raws.size, *raws,
              *held.map { |lock| lock ? lock[1] : "" }])
        end
      end
    end
  end
end
