# frozen_string_literal: true

require_relative "../scripts/zset_move"
require_relative "../scripts/zset_kill"
require_relative "../scripts/zset_scan"
require_relative "../scripts/zset_count"
require_relative "../scripts/zset_groups"

module Deckhand
  class Store
    module Sets
      # Reads and moves entries of the schedule, retry and dead sets, always a
      # bounded slice at a time: no command here loads a whole set. Moves are Lua
      # scripts that act only on entries they removed themselves, so they never
      # race the scheduler into queuing a job twice.
      #
      #   OneSet.page(store, "retry", 0, 25)             # => [[raw, score], ...]
      #   OneSet.at_score(store, "retry", 1732000000.5)  # => [raw, ...]
      #   OneSet.scan(store, "dead", "Timeout", from: 0, limit: 25, budget: 20_000, reverse: true)
      module OneSet
        module_function

        def size(store, key) = store.call("ZCARD", key)

        # Up to `count` [raw, score] pairs from rank `offset`, lowest score first
        # (or highest first with reverse: true).
        def page(store, key, offset, count, reverse: false)
          return [] if count <= 0
          args = ["ZRANGE", key, offset, offset + count - 1]
          args << "REV" if reverse
          pairs(store.call(*args, "WITHSCORES")).map { |raw, score| [raw, Float(score)] }
        end

        # The entries stored with exactly this score (usually one).
        def at_score(store, key, score)
          value = score_string(score)
          store.call("ZRANGE", key, value, value, "BYSCORE")
        end

        def remove(store, key, raws)
          return 0 if raws.empty?
          store.call("ZREM", key, *raws)
        end

        def clear(store, key) = store.call("UNLINK", key)

        # moves: [[raw, queue_name, payload_to_push], ...]. Returns how many moved.
        def move_to_queues(store, key, moves)
          Scripts::ZsetMove.new(store).call(key, moves)
        end

        # Moves entries to the dead set, trimming it. Returns the indexes (in
        # `raws`) of the entries this call moved. locks: per raw, the [key, jid]
        # of the unique lock its death releases, or nil. dead: the dead set
        # (cluster mode: store.layout.dead_set of the set's queue).
        def kill(store, key, raws, now:, max_jobs:, timeout:, locks: [], dead: nil)
          return [] if raws.empty?
          moved = Scripts::ZsetKill.new(store).call(key, raws, now: now, dead_before: now - timeout, max_jobs: max_jobs, locks: locks, dead: dead)
          moved.map { |position| position - 1 }
        end

        # Looks at up to `budget` entries from rank `from` for ones containing
        # `text`; returns [next_rank_or_nil, [[rank, raw, score], ...]].
        def scan(store, key, text, from:, limit:, budget:, reverse: false)
          reply = Scripts::ZsetScan.new(store).call(key, text, from: from, limit: limit, budget: budget, reverse: reverse)
          next_rank = reply.shift
          found = reply.each_slice(3).map { |rank, raw, score| [rank, raw, Float(score)] }
          [(next_rank == -1) ? nil : next_rank, found]
        end

        # Counts entries containing `text` among up to `budget` from rank `from`;
        # returns [next_rank_or_nil, count].
        def count(store, key, text, from:, budget:)
          next_rank, matches = Scripts::ZsetCount.new(store).call(key, text, from: from, budget: budget)
          [(next_rank == -1) ? nil : next_rank, matches]
        end

        # Counts up to `budget` entries from rank `from` by error class and job
        # class; returns [next_rank_or_nil, {error => n}, {"c:Class" or "w:Class" => n}].
        def groups(store, key, from:, budget:)
          reply = Scripts::ZsetGroups.new(store).call(key, from: from, budget: budget)
          next_rank = reply.shift
          errors = reply.shift
          pairs = reply.each_slice(2).map { |name, count| [name, count.to_i] }
          [(next_rank == -1) ? nil : next_rank, pairs.first(errors).to_h, pairs.drop(errors).to_h]
        end

        # WITHSCORES replies come as [member, score] pairs over RESP3, flat over RESP2.
        def pairs(reply) = reply.first.is_a?(Array) ? reply : reply.each_slice(2).to_a

        # A score as Redis reads it back exactly: Ruby's shortest round-trip form.
        def score_string(score) = score.is_a?(Integer) ? score.to_s : Float(score).to_s
      end
    end
  end
end
