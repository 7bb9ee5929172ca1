# frozen_string_literal: true

module Deckhand
  class Batch
    # Calls store/scripts/batch_ops.lua, the one place batch state changes.
    module Ops
      module_function

      def call(config, op, bid, *args)
        now_ms = ::Process.clock_gettime(::Process::CLOCK_REALTIME, :millisecond)
        header = Store::BatchKeys.header(now_ms, Payload.now(config.timestamps))
        config.store.script(:batch_ops, [], [*header, op, bid, *args])
      end
    end
  end
end
