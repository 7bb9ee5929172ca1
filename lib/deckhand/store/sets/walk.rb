# frozen_string_literal: true

module Deckhand
  class Store
    module Sets
      # Walks the shards of a Shards one after another from a rank of the
      # whole (the first shard's ranks, then the next's, counting on), handing
      # each shard the entries left to examine: how a bounded search, count or
      # grouping resumes across the shards of cluster mode with one number. With
      # one shard (plain mode) the rank is that set's own.
      #
      #   Walk.new(shards).run(from, 10_000) do |queue, key, local_from, budget_left, base|
      #     [local_next_rank_or_nil, stop_now]
      #   end
      #   # => the rank to resume from, or nil once every shard was walked
      class Walk # :nodoc:
        def initialize(set)
          @set = set
        end

        def run(from, budget)
          list = @set.shards
          return yield(*list.first, from, budget, 0).first if list.size == 1
          sizes = @set.sizes(list)
          base = 0
          list.zip(sizes).each do |(queue, key), size|
            next base += size if from >= base + size
            local = from - base
            local_next, = yield queue, key, local, budget, base
            return base + local_next if local_next # stopped inside this shard: a limit or the budget
            budget -= size - local
            base += size
            from = base
            return (base < sizes.sum) ? base : nil if budget <= 0
          end
          nil
        end
      end
    end
  end
end
