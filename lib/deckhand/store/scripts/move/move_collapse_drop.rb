# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_collapse_drop.lua: a carried record removed from a queue's
      # old tag while it names the job it named when carried
      # (Tags::CollapseRecordMove).
      #
      #   MoveCollapseDrop.new(store).call_many([["{queue:mail}:debounce:ab..", "b4a5.."]])   # => [1]
      class MoveCollapseDrop < Script # :nodoc:
        lua "move/move_collapse_drop"

        # records: [[record, jid], ...] in one pipeline; 1 or 0 each.
        def call_many(records) = run_pipelined(records.map { |record, jid| [[record], [jid]] })
      end
    end
  end
end
