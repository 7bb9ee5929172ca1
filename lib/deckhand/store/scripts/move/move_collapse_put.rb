# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs move_collapse_put.lua: a debounced or deduplicated key's record
      # carried under a queue's new tag (Tags::CollapseRecordMove), settling
      # with a record a push wrote there first.
      #
      #   MoveCollapsePut.new(store).call("{queue~2:mail}:debounce:ab..", "{queue~2:mail}:schedule",
      #     "debounce", "b4a5..", json, 3_590_000)   # => "carried", "kept" or "replaced"
      class MoveCollapsePut < Script # :nodoc:
        lua "move/move_collapse_put", uses: ["guard"]

        # records: [[record, schedule, mode, jid, payload, ms left], ...]
        # in one pipeline; a reply each.
        def call_many(records) = run_pipelined(records.map { |record, schedule, *argv| [[record, schedule], argv] })

        def call(record, schedule, mode, jid, payload, life_ms) = call_many([[record, schedule, mode, jid, payload, life_ms]]).first
      end
    end
  end
end
