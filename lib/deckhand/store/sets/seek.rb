# frozen_string_literal: true

require_relative "one_set"
require_relative "../scripts/sets/zset_sample"
require_relative "../scripts/sets/zset_scores"
require_relative "../scripts/sets/zset_counts"

module Deckhand
  class Store
    module Sets
      # Finds where a rank of the merged order of a set's shards (Merge's:
      # score, then queue name, then the entry's bytes) falls in each shard,
      # without reading the entries before it: for each shard, bounds [lo, hi]
      # on how many of its entries come before that rank, narrowed until no
      # pair is more than `width` apart. Merge then reads each shard from lo
      # (or the scores there, to place the page exactly: Windows).
      #
      #   seek = Seek.new(store, [["default", key], ["mail", key2]], false)
      #   seek.bounds(15_000, 100)   # => [[10_000, 10_000], [[7_480, 7_530], [7_470, 7_520]]] (sizes, bounds)
      #
      # The first round trip asks each shard its size and the scores of
      # entries spread over its ranks; the next counts the entries before each
      # sample in every other shard (a ZCOUNT: at equal scores a whole shard
      # comes before or after another, by queue name, so a score bound is
      # exact), which gives the sample's merged rank. A sample before the rank
      # raises every shard's lo to what comes before it there; one at or after
      # it lowers every hi. Bounds still too wide take another round (samples,
      # then counts) around where the rank would fall if the entries mixed
      # evenly. One script call per shard a round trip; most sets need one
      # round, a set whose queues' entries bunch apart two or three.
      class Seek # :nodoc:
        FIRST = 48 # entries sampled in the first round trip, over all shards
        SAMPLES = 48 # per further round, shared by the shards whose bounds are too wide
        ROUNDS = 64 # the most a set changing under the seek can cost

        # shards: [[queue, key], ...] by queue name; reverse: highest score first.
        def initialize(store, shards, reverse)
          @store = store
          @shards = shards
          @reverse = reverse
        end

        # [sizes, [[lo, hi], ...]] per shard for merged `rank`; no bounds when
        # the set holds no more than `rank` entries.
        def bounds(rank, width)
          looks = Scripts::ZsetSample.new(@store).call_each(@shards.map(&:last), rank: rank, samples: [FIRST / @shards.size, 8].max, reverse: @reverse)
          sizes = looks.map(&:first)
          total = sizes.sum
          return [sizes, nil] if rank >= total
          lo = sizes.map { |size| [rank - (total - size), 0].max }
          hi = sizes.map { |size| [size, rank].min }
          samples = looks.each_with_index.flat_map { |(_, found), i| found.map { |at, score| [i, at, score] } }
          ROUNDS.times do
            tighten(rank, lo, hi)
            wide = (0...@shards.size).select { |i| hi[i] - lo[i] > width }
            break if wide.empty?
            samples ||= sample(rank, wide, lo, hi, width)
            place(rank, samples, lo, hi) unless samples.empty?
            samples = nil
          end
          [sizes, lo.zip(hi)]
        end

        private

        # The shards' counts add up to the rank: each is at least the rank less
        # what the others can hold, at most the rank less what they must.
        # Bounds crossed by a change under the seek close on lo.
        def tighten(rank, lo, hi)
          lo_sum = lo.sum
          hi_sum = hi.sum
          lo.each_index do |i|
            lo[i] = [lo[i], rank - (hi_sum - hi[i])].max
            hi[i] = [hi[i], rank - (lo_sum - lo[i])].min
            hi[i] = lo[i] if hi[i] < lo[i]
          end
        end

        # [[shard index, local rank, score], ...] read in one round trip: in
        # each wide shard, entries around where the rank would fall if the
        # shards' entries mixed evenly (closer first: most sets get there in
        # a round), the rest spread over its bounds (so every round cuts them
        # down). A rank past a shard's end (entries removed meanwhile) lowers
        # its hi instead.
        def sample(rank, wide, lo, hi, width)
          per_shard = [SAMPLES / wide.size, 2].max
          wanted = wide.each_with_index.flat_map do |i, nth|
            ats = near(guess(rank, i, lo, hi), width, per_shard / 2) + spread(lo[i], hi[i], per_shard - (per_shard / 2), nth.fdiv(wide.size))
            ats.select { |at| at >= lo[i] && at < hi[i] }.uniq.map { |at| [i, at] }
          end
          by_shard = wanted.group_by(&:first)
          replies = Scripts::ZsetScores.new(@store).call_each(by_shard.map { |i, ats| [@shards[i][1], ats.map(&:last)] }, reverse: @reverse)
          by_shard.values.zip(replies).flat_map do |ats, scores|
            ats.zip(scores).filter_map do |(i, at), score|
              hi[i] = [hi[i], at].min unless score
              [i, at, score] if score
            end
          end
        end

        # Where shard i's count would be if what is left to place spread over
        # the shards as their bounds are wide.
        def guess(rank, i, lo, hi)
          open = lo.zip(hi).sum { |l, h| h - l }
          lo[i] + ((rank - lo.sum) * (hi[i] - lo[i]) / [open, 1].max)
        end

        # Pairs of ranks either side of `at`, half a width away (a hit leaves
        # bounds less than a width apart), then four times as far each time.
        def near(at, width, n)
          step = [width / 2, 1].max
          (0...(n / 2.0).ceil).flat_map { |x| [at - (step * (4**x)), at + (step * (4**x))] }.first(n)
        end

        # n ranks spread evenly over [lo, hi), the shards' grids staggered
        # (by `shift` of a step) so that their samples cut each other's ranges.
        def spread(lo, hi, n, shift)
          span = hi - lo
          (0...n).map { |x| lo + (span * (x + 0.5 + shift) / (n + 1)).floor }
        end

        # Counts what comes before each sample in the other shards (one script
        # call per shard, one round trip) and narrows every shard's bounds by
        # where the sample falls.
        def place(rank, samples, lo, hi)
          counted = (0...@shards.size).map { |i| samples.reject { |j, _, _| j == i } }
          replies = Scripts::ZsetCounts.new(@store).call_each(counted.each_with_index.map do |list, i|
            [@shards[i][1], list.map { |j, _, score| before(i, j, score) }]
          end, reverse: @reverse)
          found = samples.to_h { |sample| [sample, {}] }
          counted.zip(replies).each_with_index do |(list, counts), i|
            list.zip(counts) { |sample, count| found[sample][i] = count }
          end
          found.each do |(j, at, _), counts|
            if at + counts.values.sum < rank
              lo[j] = [lo[j], at + 1].max
              counts.each { |i, count| lo[i] = [lo[i], count].max }
            else
              hi[j] = [hi[j], at].min
              counts.each { |i, count| hi[i] = [hi[i], count].min }
            end
          end
        end

        # The bound before which (after which, reading backwards) the entries
        # of shard i come before an entry of shard j with this score: at an
        # equal score, a shard whose queue comes first (last, backwards) is
        # wholly before.
        def before(i, j, score)
          Merge.queue_first?(@shards[i][0], @shards[j][0], @reverse) ? bound(score) : "(#{bound(score)}"
        end

        def bound(score)
          return (score.positive? ? "+inf" : "-inf") if score.infinite?
          OneSet.score_string(score)
        end
      end
    end
  end
end
