# frozen_string_literal: true

require_relative "../store/scripts/batch_ops"

module Deckhand
  class Batch
    # The batch script (Store::Scripts::BatchOps), the one place batch state
    # changes, with its clock set to now.
    #
    #   Ops.script(config).success(bid, jid)   # => 1
    module Ops
      module_function

      def script(config)
        now_ms = ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond)
        Store::Scripts::BatchOps.new(config.store, now_ms: now_ms, stamp: Payload.now(config.timestamps))
      end
    end
  end
end
