# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs periodic_pushed.lua (cluster mode): clears a periodic entry's
      # pending push once it is in its queue, if the record is still that job's.
      #
      #   PeriodicPushed.new(store).call(name: "nightly", jid: "b4a5...")   # => true (cleared)
      class PeriodicPushed < Script # :nodoc:
        lua "periodic/periodic_pushed"

        def call(name:, jid:) = run([keys.periodic(name), keys::PERIODIC_PENDING], [name, jid.to_s]) == 1
      end
    end
  end
end
