# frozen_string_literal: true

require_relative "../store/scripts/batch/batch_ops"

module Deckhand
  class Batch
    # The batch script (Store::Scripts::BatchOps), the one place batch state
    # changes, with its clock set to now.
    #
    #   Ops.script(config).success(bid, jid)   # => 1
    module Ops # :nodoc:
      module_function

      def script(config)
        clock = config.store.clock # batch times (outbox ages, expiries) are the fleet's
        Store::Scripts::BatchOps.new(config.store, now_ms: clock.now_ms, stamp: Payload.now(config.timestamps, clock: clock))
      end

      # Cluster mode: pushes the callbacks a process that died left in the
      # outbox, whatever their age (a server does it as it boots). Those
      # older than BatchOps::OUTBOX_AGE are also taken by any batch call and,
      # every 30 s, by each running server's outbox drain
      # (Server::Chores::BatchOutboxDrain). A Redis failure is logged: the drain or
      # the next batch call will take them.
      def deliver_left(config)
        return 0 unless config.store.layout.batches.outbox?
        script(config).deliver_pending(age_ms: 0)
      rescue Deckhand::RedisError => e
        config.logger.warn("could not push the batch callbacks left in the outbox (#{e.message}); " \
          "the server's outbox drain or the next batch call will")
        0
      end
    end
  end
end
