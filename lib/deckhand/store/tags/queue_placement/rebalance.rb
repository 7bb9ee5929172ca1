# frozen_string_literal: true

module Deckhand
  class Store
    module Tags
      class QueuePlacement
        # Which queues to move so every primary holds as many queues as the
        # others, give or take one (`deckhand placement rebalance`): from the
        # primary holding the most to the one holding the fewest, one queue at
        # a time, each to the first tag of its own whose slot that primary
        # serves (never a tag a move retired). Plans only; Store::Tags::QueueMove moves.
        #
        #   Rebalance.new(store).moves
        #   # => [#<struct Move queue="low", from="127.0.0.1:7000", to="127.0.0.1:7002", tag="{queue~4:low}">]
        class Rebalance # :nodoc:
          Move = Struct.new(:queue, :from, :to, :tag)

          def initialize(store)
            @store = store
            @holders = store.layout.placement.report
            @holders.delete("unserved")
            @slots = Tags::QueuePlacement::Slots.read(store)
            @retired = Tags::QueuePlacement::Moves.retired(store)
          end

          def moves
            holders = @holders.transform_values(&:dup)
            planned = []
            loop do
              busiest, fewest = holders.max_by { |_, q| q.size }, holders.min_by { |_, q| q.size }
              break if busiest.nil? || busiest[1].size - fewest[1].size <= 1
              queue = busiest[1].pop
              fewest[1] << queue
              planned << Move.new(queue, busiest[0], fewest[0], tag_on(queue, fewest[0]))
            end
            planned
          end

          # The first tag of `queue` on `primary` that no move retired.
          def tag_on(queue, primary)
            (0...CANDIDATES).map { |n| Layout::Cluster.candidate(queue, n) }.find do |tag|
              @slots.primary_of(tag) == primary && !@retired.key?(tag)
            end or raise PlacementError, "no tag of queue #{queue.inspect} falls on #{primary}; move another queue"
          end
        end
      end
    end
  end
end
