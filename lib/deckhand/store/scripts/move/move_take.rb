# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_take.lua: a queue move's batch taken off a list or sorted
      # set under the old tag and held beside it (`<source>:moving:batch` and
      # `:id`), or the batch a mover that died left held (QueueMoveBatch).
      #
      #   MoveTake.new(store).call("{queue:mail}", "list", 500, "b1")   # => ["b1", job, ...] ([] when empty)
      class MoveTake < Script # :nodoc:
        lua "move/move_take", uses: ["guard"]

        def call(source, kind, limit, id) = run([source, Layout::TagNames.held_batch(source), Layout::TagNames.held_batch_id(source)], [kind, limit, id])
      end
    end
  end
end
