# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs periodic_push.lua (cluster mode): pushes a periodic entry's
      # recorded tick to its queue, once whoever retries (see the script).
      #
      #   PeriodicPush.new(store).call(queue: "reports", name: "nightly", tick: 1_764_000_000, jid: jid, payload: json)
      #   # => true (pushed) or false (pushed before)
      #
      # With push_replicas set, a push WAITs on the queue's node and raises
      # NotReplicated (naming jid) when its replicas came short.
      class PeriodicPush < Script # :nodoc:
        lua "periodic/periodic_push", uses: ["guard"]

        # The marker outlives any pending record: a record left by a crash
        # between the push and its clearing is completed by the next leader,
        # within seconds while the fleet runs.
        MARKER_TTL_MS = 30 * 86_400 * 1000

        def call(queue:, name:, tick:, jid:, payload:)
          pushed = run_durably([keys.queue(queue), keys.periodic_pushed(queue, name)], [tick.to_i, payload, MARKER_TTL_MS]) do |reply|
            (reply == 1) ? [jid] : []
          end
          pushed == 1
        end
      end
    end
  end
end
