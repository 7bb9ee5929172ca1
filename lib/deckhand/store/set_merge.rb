# frozen_string_literal: true

require_relative "set_seek"

module Deckhand
  class Store
    # Reads the shards of a set (SetShards) as one, in score order: one page,
    # or every entry. Equal scores in different shards come in the order of
    # their queues' names, then of the entries' bytes (as Redis orders them
    # within one sorted set), the same on every page and in both directions.
    #
    #   merge = SetMerge.new(store, [["default", "{queue:default}:retry"], ["mail", "{queue:mail}:retry"]], false)
    #   merge.page(25, 25)   # => [[queue, raw, score], ...] ranks 25 to 49
    #   merge.each(500) { |queue, raw, score| ... }
    class SetMerge
      WIDTH = 100 # SetSeek stops when a page's start is known within this many ranks of each shard

      # shards: [[queue, key], ...]; reverse: highest score first.
      def initialize(store, shards, reverse)
        @store = store
        @shards = shards
        @reverse = reverse
      end

      # Up to `count` entries from rank `offset` of the merged order. Near the
      # start each shard's first offset + count entries are read (one round
      # trip); deeper, SetSeek finds, in a few round trips whatever the
      # offset, a few ranks in each shard within which the page starts, and
      # each shard is read from there. The merge drops what comes before the
      # page.
      def page(offset, count)
        return [] if count <= 0
        width = [count, WIDTH].max
        shards = @shards
        if offset <= width
          bounds = shards.map { [0, offset] }
        else
          sizes, bounds = SetSeek.new(@store, shards, @reverse).bounds(offset, width)
          return [] unless bounds
          shards, bounds = shards.zip(bounds).zip(sizes).reject { |_, size| size.zero? }.map(&:first).transpose
        end
        merged = read(shards, bounds, count)
        merged[[offset - bounds.sum(&:first), 0].max, count] || []
      end

      # Yields every [queue, raw, score], reading `batch` entries of a shard
      # at a time (the shards that ran out together, pipelined).
      def each(batch)
        cursors = @shards.to_h { |queue, key| [queue, [key, 0, []]] }
        until cursors.empty?
          refill(cursors, batch)
          break if cursors.empty?
          queue, (_, _, buffer) = next_shard(cursors)
          yield [queue, *buffer.shift]
        end
      end

      private

      # Each shard's entries from its lo to count past its hi, merged.
      def read(shards, bounds, count)
        replies = @store.pipelined do |pipe|
          shards.zip(bounds) { |(_, key), (lo, hi)| pipe.call("ZRANGE", key, lo, hi + count - 1, *("REV" if @reverse), "WITHSCORES") }
        end
        entries = shards.zip(replies).flat_map do |(queue, _), reply|
          SortedSets.pairs(reply).map { |raw, score| [queue, raw, Float(score)] }
        end
        merged = entries.sort_by { |queue, raw, score| [score, queue.to_s, raw] }
        @reverse ? merged.reverse : merged
      end

      # Reads the next batch of each shard whose buffer ran out; forgets a
      # shard with nothing left.
      def refill(cursors, batch)
        empty = cursors.select { |_, (_, _, buffer)| buffer.empty? }
        return if empty.empty?
        replies = @store.pipelined do |pipe|
          empty.each_value { |key, offset, _| pipe.call("ZRANGE", key, offset, offset + batch - 1, *("REV" if @reverse), "WITHSCORES") }
        end
        empty.keys.zip(replies) do |queue, reply|
          read = SortedSets.pairs(reply).map { |raw, score| [raw, Float(score)] }
          next cursors.delete(queue) if read.empty?
          cursors[queue][1] += read.size
          cursors[queue][2] = read
        end
      end

      # The shard whose next entry comes first in the merged order.
      def next_shard(cursors)
        by = ->((queue, (_, _, buffer))) { [buffer.first[1], queue.to_s, buffer.first[0]] }
        @reverse ? cursors.max_by(&by) : cursors.min_by(&by)
      end
    end
  end
end
