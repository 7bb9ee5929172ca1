# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_fair_put.lua: a queue move's held batch of tenants' jobs
      # written under the new tag once, each job scored against the new
      # tag's virtual time as it was against the old one's (`vt`), with a
      # marker of the batch's id that lives `ttl` seconds (QueueMoveBatch).
      #
      #   MoveFairPut.new(store).call("{queue~2:reports}", "{queue~2:reports}:moved:b1", "41.5", members_and_scores, 3600)   # => 500 (0: written before)
      class MoveFairPut < Script # :nodoc:
        lua "move/move_fair_put", uses: ["guard"]

        def call(tag, marker, vt, items, ttl) = run([tag, Layout::TagNames.fair_jobs(tag), Layout::TagNames.fair_tenants(tag), marker], [ttl, vt, *items])
      end
    end
  end
end
