# frozen_string_literal: true

module Deckhand
  class API
    # Moving queues between the primaries of a cluster while jobs flow
    # (docs/cluster.md, "Moving a queue"): one queue to a primary, or as many
    # as it takes to even out the queues per primary.
    #
    #   moves = api.queue_moves
    #   moves.plan                            # => [#<struct Move queue="low", from=..., to=..., tag=...>]
    #   moves.rebalance                       # moves them, one after the other; => [Result, ...]
    #   moves.move("mail", to: "127.0.0.1:7002")
    #   moves.under_way                       # => {"mail" => {"from" => ..., "to" => ..., "step" => "copy"}}
    class QueueMoves
      def initialize(config, timeout: 60)
        @store = config.store
        if @store.layout.plain?
          raise PlacementError, "queues move between the primaries of a Redis Cluster; this Redis is not one (docs/cluster.md)"
        end
        @timeout = timeout
      end

      # The moves that would spread the queues evenly over the primaries, made by none.
      def plan = Store::Tags::QueuePlacement::Rebalance.new(@store).moves

      # Makes the moves #plan lists, one queue at a time.
      def rebalance = plan.map { |move| mover.call(move.queue, to: move.tag) }

      # Moves `queue` to the primary `to` ("host:port"; default: the one
      # holding the fewest queues), or finishes its move under way.
      def move(queue, to: nil)
        queue = Store::Layout::Cluster.valid_name(queue)
        state = under_way[queue]
        return mover.call(queue, to: state["to"]) if state
        rebalance = Store::Tags::QueuePlacement::Rebalance.new(@store)
        holders = @store.layout.placement.report
        unless holders.values.flatten.include?(queue)
          raise PlacementError, "no queue #{queue.inspect} in this cluster; `deckhand placement` lists them"
        end
        to ||= (holders.keys - ["unserved"]).reject { |primary| holders[primary].include?(queue) }.min_by { |p| holders[p].size }
        unless holders.key?(to)
          raise PlacementError, "#{to.inspect} is not a primary of this cluster: one of #{holders.keys.join(", ")}"
        end
        mover.call(queue, to: rebalance.tag_on(queue, to))
      end

      # The queue moves started and not finished.
      def under_way = Store::Tags::QueuePlacement::Moves.under_way(@store)

      # Tags a move retired that hold jobs again (pushed by a process that
      # had not followed the move): tag => [queue, jobs].
      def stranded = Store::Tags::QueuePlacement::Moves.stranded(@store)

      private

      def mover = Store::Tags::QueueMove.new(@store, timeout: @timeout)
    end
  end
end
