# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_move.lua: entries of a sorted set to their queues, each only
      # if this call removed it. Each queue is declared once, however many
      # entries go to it.
      #
      #   ZsetMove.new(store).call("retry", [[raw, "default", payload]])  # => 1 (moved)
      #
      # In cluster mode a set shard moves to its own queue only (one slot),
      # shards pipelined, the queues' names registered after:
      #
      #   ZsetMove.new(store).call_shards({"mail" => [[raw, payload]], "default" => [...]}, kind: :retry_set)
      class ZsetMove < Script # :nodoc:
        lua "sets/zset_move", uses: ["guard"]

        # moves: [[entry as stored, queue name, payload to push], ...].
        def call(set, moves)
          return 0 if moves.empty?
          run(*arguments(set, moves, [keys::QUEUES]))
        end

        # moves: {queue => [[entry as stored, payload to push], ...]}, each
        # from that queue's shard of the set `kind` names (:scheduled_set,
        # :retry_set or :dead_set) back to that queue.
        def call_shards(moves, kind:)
          moves = moves.reject { |_, list| list.empty? }
          return 0 if moves.empty?
          calls = moves.map do |queue, list|
            arguments(keys.public_send(kind, queue), list.map { |raw, payload| [raw, queue, payload] }, [])
          end
          moved = run_pipelined(calls)
          @store.call("SADD", keys::QUEUES, *moves.keys) if moved.sum.positive?
          moved.sum
        end

        # Moves entries, as stored, from a set in `queue`'s own slot (a
        # paused class's held set) back to `queue`.
        def call_within(set, queue, raws)
          return 0 if raws.empty?
          moves = raws.map { |raw| [raw, queue, raw] }
          return call(set, moves) if keys.plain?
          moved = run(*arguments(set, moves, []))
          @store.call("SADD", keys::QUEUES, queue) if moved.positive?
          moved
        end

        private

        def arguments(set, moves, registry)
          names = moves.map { |_, queue, _| queue }.uniq
          position = names.each_with_index.to_h { |name, i| [name, i + 1] }
          entries = moves.flat_map { |raw, queue, payload| [raw, position[queue], payload] }
          [[set, *names.map { |name| keys.queue(name) }, *registry], [names.size, *names, *entries]]
        end
      end
    end
  end
end
