# frozen_string_literal: true

require "json"

module Deckhand
  class Store
    module Scripts
      # Runs cancel_take.lua: one cancelled job out of its queue or set, its
      # record written in the same step (plain mode). In cluster mode the
      # record and the mark live in the fleet's slot, not the queue's: the
      # entry leaves in the script and Store::Jobs::Cancellations writes the
      # record after it.
      #
      #   CancelTake.new(store).call("queue:default", raw, jid: "b4a5...", record: {"jid" => "b4a5...", ...}, ttl: 86_400)
      #   # => true (removed), false (no longer there)
      class CancelTake < Script # :nodoc:
        lua "cancel/cancel_take", uses: ["guard"]

        def call(source, raw, jid:, record:, ttl:)
          own = keys.plain? ? [keys.cancelled(jid), keys.cancel_mark(jid)] : []
          run([source, *own], [raw, JSON.generate(record), ttl]) == 1
        end
      end
    end
  end
end
