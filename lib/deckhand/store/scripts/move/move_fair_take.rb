# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_fair_take.lua: a queue move's batch of a fair queue's
      # tenants' jobs taken off `<tag>:fair`, counted out of `<tag>:tenants`
      # and held beside them (`<tag>:fair:moving:batch` and `:id`) with the
      # virtual time they were scored against, or the batch a mover that
      # died left held (QueueMoveBatch).
      #
      #   MoveFairTake.new(store).call("{queue:reports}", 500, "b1")   # => ["b1", "41.5", "acme\n{...}", "42.5", ...] ([] when empty)
      class MoveFairTake < Script # :nodoc:
        lua "move/move_fair_take", uses: ["guard"]

        def call(tag, limit, id)
          jobs = Layout::TagNames.fair_jobs(tag)
          run([jobs, Layout::TagNames.fair_tenants(tag), Layout::TagNames.held_batch(jobs), Layout::TagNames.held_batch_id(jobs)], [limit, id])
        end
      end
    end
  end
end
