# frozen_string_literal: true

module Deckhand
  class Store
    # Writes to the dead set, trimming it as it goes: entries older than the
    # timeout and the oldest beyond the cap are dropped (Sidekiq's rules).
    module Morgue
      module_function

      # Queues the commands on a pipeline or transaction. `set`: the dead set
      # (store.keys.dead_set(queue): in cluster mode each queue has its own,
      # and the bounds apply to each).
      def bury(tx, payload, now:, max_jobs:, timeout:, set:)
        tx.call("ZADD", set, now, payload)
        tx.call("ZREMRANGEBYSCORE", set, "-inf", now - timeout)
        tx.call("ZREMRANGEBYRANK", set, 0, -(max_jobs + 1))
      end
    end
  end
end
