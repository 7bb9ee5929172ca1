# frozen_string_literal: true

module Deckhand
  class Store
    module Sets
      # Where a page starts in each shard of a set, exactly, from the scores of
      # a run of each shard's entries that holds the start (Seek's bounds,
      # then a page further): an entry's merged rank is what comes before it
      # in its own shard plus, in each other shard, the entries of a lower
      # score, or of an equal score when that shard's queue comes first
      # (reading backwards: a higher score, or equal and the queue last). A
      # binary search in each shard's run finds its first entry at or past the
      # rank. Scores alone do it: the entries themselves are never compared.
      #
      #   runs = {0 => [4_990, [3.0, 3.5, ...]], 1 => [5_002, [3.25, ...]]}  # shard => [rank of the first score, scores]
      #   Windows.new(shards, false, runs).starts(10_000)   # => {0 => 4_996, 1 => 5_004}
      #
      # Counting only within the runs is exact where it matters: an entry
      # before the rank has, in every other shard, fewer entries before it
      # than that shard's start, all inside its run; for one at or past it a
      # count cut short at a run's end is still at least that shard's start.
      class Windows # :nodoc:
        def initialize(shards, reverse, runs)
          @queues = shards.map(&:first)
          @reverse = reverse
          @runs = runs
          @base = runs.sum { |_, (first, _)| first }
        end

        # {shard index => the local rank of its first entry at or past `rank`}.
        def starts(rank)
          @runs.to_h do |i, (first, scores)|
            x = (0...scores.size).bsearch { |at| rank_of(i, at, scores[at]) >= rank } || scores.size
            [i, first + x]
          end
        end

        private

        def rank_of(i, at, score)
          @base + at + @runs.sum { |j, (_, scores)| (j == i) ? 0 : before(scores, score, first?(j, i)) }
        end

        # How many of a run's scores come before an entry with this score in
        # another shard; `first`: at an equal score the run's entries do.
        def before(scores, score, first)
          found = if @reverse
            scores.bsearch_index { |value| first ? value < score : value <= score }
          else
            scores.bsearch_index { |value| first ? value > score : value >= score }
          end
          found || scores.size
        end

        # Does shard j come before shard i at an equal score?
        def first?(j, i) = Merge.queue_first?(@queues[j], @queues[i], @reverse)
      end
    end
  end
end
