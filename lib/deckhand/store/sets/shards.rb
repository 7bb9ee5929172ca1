# frozen_string_literal: true

require_relative "one_set"
require_relative "walk"
require_relative "merge"

module Deckhand
  class Store
    module Sets
      # The schedule, retry or dead set as the sorted sets that hold it: one in
      # plain mode (Sidekiq's "retry"), one per known queue in cluster mode
      # ("{queue:mail}:retry", the queues named in keys::QUEUES, by name). Every
      # entry read comes with its shard's queue (nil in plain mode) so an action
      # goes back to the very sorted set it came from; a script call gets the
      # keys of one shard (one slot) and calls on several shards are pipelined.
      #
      #   retries = Shards.new(store, :retries)
      #   retries.size                          # => 1_204 (summed over the shards)
      #   retries.page(0, 25)                   # => [["mail", raw, score], ...] soonest first, across shards
      #   retries.remove("mail" => [raw])       # => 1
      #
      # Paging merges the shards: a page finds where it starts in each shard
      # (Seek, a few round trips whatever its depth), then reads its entries
      # from there. Searches, groupings within a budget and the actions on the
      # whole set go through the shards one after another (queue names in
      # order), so a search's ranks count along that order; counts run on every
      # shard side by side.
      #
      # Given a String, the sorted set a plugin keeps under that name
      # (Layout#named_set, sidekiq-failures' "failed"): one key in either
      # mode, read and acted on as the plain mode's sets are.
      #
      #   Shards.new(store, "failed").page(0, 25) # => [[nil, raw, score], ...]
      class Shards # :nodoc:
        KINDS = {scheduled: :scheduled_set, retries: :retry_set, dead: :dead_set}.freeze

        attr_reader :kind

        def initialize(store, kind)
          @store = store
          @keys = store.layout
          @named = kind if kind.is_a?(String)
          @kind = @named ? nil : KINDS.fetch(kind)
        end

        # True when each queue has a shard of its own (cluster mode); never
        # for a named set, one key in either mode.
        def per_queue? = !@named && @keys.sets_per_queue?

        # True for a named set in cluster mode: its key is in a slot of its
        # own, so no script can move its entries to a queue or the dead set.
        def apart? = @named && @keys.sets_per_queue?

        # [[queue or nil, key], ...] in the order the shards are walked.
        def shards
          return [[nil, key(nil)]] if @named
          queues = per_queue? ? @store.call("SMEMBERS", @keys::QUEUES) : []
          @keys.set_keys(@kind, queues)
        end

        def key(queue) = @named ? @keys.named_set(@named) : @keys.public_send(@kind, queue)

        def size = sizes(shards).sum

        def sizes(list)
          return [OneSet.size(@store, list.first[1])] if list.size == 1
          @store.pipelined { |pipe| list.each { |_, key| pipe.call("ZCARD", key) } }
        end

        # Up to `count` [queue, raw, score] from rank `offset` of the merged
        # order, lowest score first (highest first with reverse: true).
        def page(offset, count, reverse: false)
          list = shards
          if list.size == 1
            queue, key = list.first
            return OneSet.page(@store, key, offset, count, reverse: reverse).map { |raw, score| [queue, raw, score] }
          end
          Merge.new(@store, list, reverse).page(offset, count)
        end

        # Yields every [queue, raw, score] in the merged order, reading `batch`
        # entries of a shard at a time: each entry is read once, whatever the
        # size of the set.
        def each_entry(reverse: false, batch: 100, &block)
          Merge.new(@store, shards, reverse).each(batch, &block)
        end

        # [queue, raw] of the entries stored with exactly this score, in any shard.
        def at_score(score)
          list = shards
          return OneSet.at_score(@store, list.first[1], score).map { |raw| [list.first[0], raw] } if list.size == 1
          value = OneSet.score_string(score)
          found = @store.pipelined { |pipe| list.each { |_, key| pipe.call("ZRANGE", key, value, value, "BYSCORE") } }
          list.zip(found).flat_map { |(queue, _), raws| raws.map { |raw| [queue, raw] } }
        end

        # [queue, raw, score] of the entries scored from min to max, in any shard.
        def in_scores(min, max)
          list = shards
          found = @store.pipelined { |pipe| list.each { |_, key| pipe.call("ZRANGE", key, OneSet.score_string(min), OneSet.score_string(max), "BYSCORE", "WITHSCORES") } }
          list.zip(found).flat_map { |(queue, _), reply| OneSet.pairs(reply).map { |raw, score| [queue, raw, Float(score)] } }
        end

        # raws: {queue or nil => [raw, ...]}. Returns how many were removed.
        def remove(raws)
          raws = raws.reject { |_, list| list.empty? }
          return OneSet.remove(@store, key(raws.keys.first), raws.values.first) if raws.size == 1
          return 0 if raws.empty?
          @store.pipelined { |pipe| raws.each { |queue, list| pipe.call("ZREM", key(queue), *list) } }.sum
        end

        # Empties every shard; returns how many entries there were.
        def clear
          list = shards
          count = sizes(list).sum
          if list.size == 1
            OneSet.clear(@store, list.first[1])
          else
            @store.pipelined { |pipe| list.each { |_, key| pipe.call("UNLINK", key) } }
          end
          count
        end

        # moves: {queue or nil => [[raw, queue to push to, payload], ...]}. In
        # cluster mode an entry goes back to its shard's own queue. Returns how
        # many moved.
        def move(moves)
          unless per_queue?
            return OneSet.move_to_queues(@store, key(nil), moves.values.flatten(1))
          end
          Scripts::ZsetMove.new(@store).call_shards(moves.transform_values { |list| list.map { |raw, _, payload| [raw, payload] } }, kind: @kind)
        end

        # raws: {queue or nil => [raw, ...]}; locks: same shape, per raw
        # [key, jid] or nil. Returns {queue => indexes (in its raws) moved}.
        def kill(raws, locks:, now:, max_jobs:, timeout:)
          unless per_queue?
            queue, list = raws.first
            return {} unless list
            return {queue => OneSet.kill(@store, key(queue), list, now: now, max_jobs: max_jobs, timeout: timeout, locks: locks.fetch(queue, []))}
          end
          moved = Scripts::ZsetKill.new(@store).call_shards(@kind, raws, now: now, dead_before: now - timeout, max_jobs: max_jobs, locks: locks)
          moved.transform_values { |positions| positions.map { |position| position - 1 } }
        end

        # Looks at up to `budget` entries from rank `from` (ranks count along
        # the shards one after another) for ones containing `text`; returns
        # [next_rank_or_nil, [[rank, queue, raw, score], ...]].
        def scan(text, from:, limit:, budget:, reverse: false)
          found = []
          next_rank = Walk.new(self).run(from, budget) do |queue, key, local, left, base|
            local_next, hits = OneSet.scan(@store, key, text, from: local, limit: limit - found.size, budget: left, reverse: reverse)
            found.concat(hits.map { |rank, raw, score| [base + rank, queue, raw, score] })
            [local_next, found.size >= limit]
          end
          [next_rank, found]
        end

        # How many entries contain `text`, all shards counted side by side.
        def count(text, step:)
          cursors = shards.to_h { |_, key| [key, 0] }
          total = 0
          until cursors.empty?
            replies = counts(cursors, text, step)
            cursors.keys.zip(replies) do |key, (next_rank, matches)|
              total += matches
              (next_rank == -1) ? cursors.delete(key) : cursors[key] = next_rank
            end
          end
          total
        end

        # Counts up to `budget` entries from rank `from` by error class and job
        # class; returns [next_rank_or_nil, {error => n}, {"c:Class" => n},
        # {[error, "c:Class"] => [n, first failed_at, last failed_at]}].
        def groups(from:, budget:)
          errors = Hash.new(0)
          classes = Hash.new(0)
          cells = {}
          next_rank = Walk.new(self).run(from, budget) do |_, key, local, left, _|
            local_next, errs, kinds, pairs = OneSet.groups(@store, key, from: local, budget: left)
            errs.each { |name, n| errors[name] += n }
            kinds.each { |name, n| classes[name] += n }
            Shards.merge_cells(cells, pairs)
            [local_next, false]
          end
          [next_rank, errors, classes, cells]
        end

        # Adds `more` cells ({pair => [n, first, last]}) into `cells`.
        def self.merge_cells(cells, more)
          more.each do |pair, (count, first, last)|
            was = cells[pair]
            cells[pair] = was ? [was[0] + count, [was[1], first].compact.min, [was[2], last].compact.max] : [count, first, last]
          end
          cells
        end

        private

        def counts(cursors, text, step)
          return [Scripts::ZsetCount.new(@store).call(cursors.keys.first, text, from: cursors.values.first, budget: step)] if cursors.size == 1
          Scripts::ZsetCount.new(@store).call_each(cursors.map { |key, from| [key, text, from, step] })
        end
      end
    end
  end
end
