# frozen_string_literal: true

require_relative "../scripts/sets/zset_move"
require_relative "../scripts/sets/zset_kill"
require_relative "../scripts/sets/zset_scan"
require_relative "../scripts/sets/zset_count"
require_relative "../scripts/sets/zset_groups"

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
      module OneSet # :nodoc:
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

        # [raw, score] pairs with a score from min to max (inclusive), lowest first.
        def in_scores(store, key, min, max)
          pairs(store.call("ZRANGE", key, score_string(min), score_string(max), "BYSCORE", "WITHSCORES")).map { |raw, score| [raw, Float(score)] }
        end

        # Adds an entry (a job's JSON) at a score.
        def add(store, key, score, raw) = store.call("ZADD", key, score_string(score), raw)

        # Gives an entry a new score, if it is still in the set. Returns true if it was.
        def rescore(store, key, raw, score) = store.call("ZADD", key, "XX", "CH", score_string(score), raw) == 1

        # Adds a job that is in no set to the dead set and trims the set as a
        # death does (older than `timeout` seconds, beyond `max_jobs`), in one
        # MULTI: Sidekiq's DeadSet#kill of a payload.
        def bury(store, key, raw, now:, max_jobs:, timeout:)
          store.multi do |tx|
            tx.call("ZADD", key, score_string(now), raw)
            tx.call("ZREMRANGEBYSCORE", key, "-inf", score_string(now - timeout))
            tx.call("ZREMRANGEBYRANK", key, 0, -(max_jobs + 1))
          end
          nil
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
        # class; returns [next_rank_or_nil, {error => n}, {"c:Class" or
        # "w:Class" => n}, {[error, "c:Class"] => [n, first failed_at, last
        # failed_at]}] (times as Floats, nil when no entry had one).
        def groups(store, key, from:, budget:)
          reply = Scripts::ZsetGroups.new(store).call(key, from: from, budget: budget)
          next_rank, errors, classes = reply.shift(3)
          pairs = reply.shift(2 * (errors + classes)).each_slice(2).map { |name, count| [name, count.to_i] }
          cells = reply.each_slice(5).to_h { |err, kind, count, first, last| [[err, kind], [count.to_i, time(first), time(last)]] }
          [(next_rank == -1) ? nil : next_rank, pairs.first(errors).to_h, pairs.drop(errors).to_h, cells]
        end

        def time(text) = text.empty? ? nil : Float(text)

        # WITHSCORES replies come as [member, score] pairs over RESP3, flat over RESP2.
        def pairs(reply) = reply.first.is_a?(Array) ? reply : reply.each_slice(2).to_a

        # A score as Redis reads it back exactly: Ruby's shortest round-trip form.
        def score_string(score) = score.is_a?(Integer) ? score.to_s : Float(score).to_s
      end
    end
  end
end
