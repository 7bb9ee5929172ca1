# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_kill.lua: entries of the schedule or retry set to the dead
      # set, each only if this call removed it, trimming the dead set.
      #
      #   ZsetKill.new(store).call("retry", [raw], now: now, dead_before: now - 180 * 86_400, max_jobs: 10_000)
      #   # => [1] (1-based positions, in raws, of the entries moved)
      #
      # In cluster mode each queue's shard goes to that queue's dead set (one
      # slot), shards pipelined; a unique lock lives in another slot, so the
      # locks of the jobs killed are released after, each by its own call:
      #
      #   ZsetKill.new(store).call_shards(:retry_set, {"mail" => [raw]}, now: now, dead_before: now - 180 * 86_400, max_jobs: 10_000)
      #   # => {"mail" => [1]}
      class ZsetKill < Script # :nodoc:
        lua "sets/zset_kill", uses: ["guard", "unique"]

        # locks: per raw, [key, jid] of the unique lock it holds, or nil
        # (a death releases it). dead: the dead set, in cluster mode that of
        # the set's queue (store.layout.dead_set(queue), the same slot).
        def call(set, raws, now:, dead_before:, max_jobs:, locks: [], dead: nil)
          held = raws.each_index.map { |i| locks[i] }
          run([set, dead || keys::DEAD, *held.compact.map(&:first)],
            [Sets::OneSet.score_string(now), Sets::OneSet.score_string(dead_before), max_jobs, raws.size, *raws,
              *held.map { |lock| lock ? lock[1] : "" }])
        end

        # raws: {queue => [entry as stored, ...]} from that queue's shard of
        # `kind` (:scheduled_set or :retry_set). locks: {queue => per raw,
        # [key, jid] or nil}. Returns {queue => 1-based positions moved}.
        def call_shards(kind, raws, now:, dead_before:, max_jobs:, locks: {})
          raws = raws.reject { |_, list| list.empty? }
          calls = raws.map do |queue, list|
            [[keys.public_send(kind, queue), keys.dead_set(queue)],
              [Sets::OneSet.score_string(now), Sets::OneSet.score_string(dead_before), max_jobs, list.size, *list, *list.map { "" }]]
          end
          moved = raws.keys.zip(run_pipelined(calls)).to_h
          held = moved.flat_map { |queue, positions| positions.filter_map { |i| locks.fetch(queue, [])[i - 1] } }
          Unlock.new(@store).call_each(held.filter_map { |key, jid| [key, jid] unless jid.to_s.empty? })
          moved
        end
      end
    end
  end
end
