# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_put.lua: a queue move's held batch written under the new
      # tag once, with a marker of its id that lives `ttl` seconds
      # (QueueMoveBatch).
      #
      #   MovePut.new(store).call("{queue~2:mail}", "{queue~2:mail}:moved:b1", "list", jobs, 3600)   # => 500 (0: written before)
      class MovePut < Script # :nodoc:
        lua "move/move_put", uses: ["guard"]

        def call(destination, marker, kind, items, ttl) = run([destination, marker], [kind, ttl, *items])
      end
    end
  end
end
