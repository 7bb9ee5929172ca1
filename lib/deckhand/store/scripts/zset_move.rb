# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs zset_move.lua: entries of a sorted set to their queues, each only
      # if this call removed it. Each queue is declared once, however many
      # entries go to it.
      #
      #   ZsetMove.new(store).call("retry", [[raw, "default", payload]])  # => 1 (moved)
      class ZsetMove < Script
        lua "zset_move"

        # moves: [[entry as stored, queue name, payload to push], ...].
        def call(set, moves)
          return 0 if moves.empty?
          names = moves.map { |_, queue, _| queue }.uniq
          position = names.each_with_index.to_h { |name, i| [name, i + 1] }
          entries = moves.flat_map { |raw, queue, payload| [raw, position[queue], payload] }
          run([set, keys::QUEUES, *names.map { |name| keys.queue(name) }], [names.size, *names, *entries])
        end
      end
    end
  end
end
