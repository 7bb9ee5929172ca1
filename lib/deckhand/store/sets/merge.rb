# frozen_string_literal: true

require_relative "seek"
require_relative "../scripts/sets/zset_window"
require_relative "windows"

module Deckhand
  class Store
    module Sets
      # Reads the shards of a set (Shards) as one, in score order: one page,
      # or every entry. Equal scores in different shards come in the order of
      # their queues' names, then of the entries' bytes (as Redis orders them
      # within one sorted set), the same on every page and in both directions.
      #
      #   merge = Merge.new(store, [["default", "{queue:default}:retry"], ["mail", "{queue:mail}:retry"]], false)
      #   merge.page(25, 25)   # => [[queue, raw, score], ...] ranks 25 to 49
      #   merge.each(500) { |queue, raw, score| ... }
      class Merge # :nodoc:
        NEAR = 100 # a page known within this many ranks of each shard reads them (from the start up to this offset)
        WIDTH = 500 # Seek stops when a page's start is known within this many ranks of each shard

        # At an equal score, do the entries of `queue`'s shard come before those
        # of `other`'s? The queue named first does, reading forwards; the one
        # named last, backwards. Seek and Windows place pages by it.
        def self.queue_first?(queue, other, reverse) = (queue.to_s < other.to_s) ^ reverse

        # shards: [[queue, key], ...]; reverse: highest score first; near and
        # width: NEAR and WIDTH (tests pass small ones to make the seek work).
        def initialize(store, shards, reverse, near: NEAR, width: WIDTH)
          @store = store
          @shards = shards
          @reverse = reverse
          @near = near
          @width = width
        end

        # Up to `count` entries from rank `offset` of the merged order. Near the
        # start each shard's first offset + count entries are read (one round
        # trip). Deeper, Seek finds, in a few round trips whatever the
        # offset, a few hundred ranks in each shard within which the page
        # starts. Within NEAR ranks, those entries are read and merged; else
        # their scores (and the queues' names) place the page's start in each
        # shard exactly, and only a page from each is read.
        def page(offset, count)
          return [] if count <= 0
          return read(@shards.map { |_, key| [key, 0, offset + count - 1] })[offset, count] || [] if offset <= @near
          sizes, bounds = Seek.new(@store, @shards, @reverse).bounds(offset, [count, @width].max)
          return [] unless bounds
          live = (0...@shards.size).reject { |i| sizes[i].zero? }
          if bounds.all? { |lo, hi| hi - lo <= @near }
            merged = read(live.map { |i| [@shards[i][1], bounds[i][0], bounds[i][1] + count - 1] })
            return merged[[offset - bounds.sum(&:first), 0].max, count] || []
          end
          windows = Scripts::ZsetWindow.new(@store).call_each(live.map { |i| [@shards[i][1], bounds[i][0], bounds[i][1] + count - 1] }, reverse: @reverse)
          starts = Windows.new(@shards, @reverse, live.zip(windows).to_h { |i, scores| [i, [bounds[i][0], scores]] }).starts(offset)
          merged = read(starts.map { |i, start| [@shards[i][1], start, start + count - 1] })
          merged[[offset - starts.values.sum, 0].max, count] || []
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

        # The entries of each [key, first rank, last rank], merged.
        def read(runs)
          queues = @shards.to_h { |queue, key| [key, queue] }
          replies = @store.pipelined { |pipe| runs.each { |key, first, last| range(pipe, key, first, last) } }
          entries = runs.zip(replies).flat_map do |(key, _, _), reply|
            OneSet.pairs(reply).map { |raw, score| [queues[key], raw, Float(score)] }
          end
          merged = entries.sort_by { |queue, raw, score| [score, queue.to_s, raw] }
          @reverse ? merged.reverse : merged
        end

        # Reads the next batch of each shard whose buffer ran out; forgets a
        # shard with nothing left.
        def refill(cursors, batch)
          empty = cursors.select { |_, (_, _, buffer)| buffer.empty? }
          return if empty.empty?
          replies = @store.pipelined { |pipe| empty.each_value { |key, offset, _| range(pipe, key, offset, offset + batch - 1) } }
          empty.keys.zip(replies) do |queue, reply|
            read = OneSet.pairs(reply).map { |raw, score| [raw, Float(score)] }
            next cursors.delete(queue) if read.empty?
            cursors[queue][1] += read.size
            cursors[queue][2] = read
          end
        end

        # Ranks first..last of one shard with their scores, in the set's order.
        def range(pipe, key, first, last) = pipe.call("ZRANGE", key, first, last, *("REV" if @reverse), "WITHSCORES")

        # The shard whose next entry comes first in the merged order.
        def next_shard(cursors)
          by = ->((queue, (_, _, buffer))) { [buffer.first[1], queue.to_s, buffer.first[0]] }
          @reverse ? cursors.max_by(&by) : cursors.min_by(&by)
        end
      end
    end
  end
end
