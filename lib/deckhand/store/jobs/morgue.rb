# frozen_string_literal: true

module Deckhand
  class Store
    module Jobs
      # Writes to the dead set, trimming it as it goes: entries older than the
      # timeout and the oldest beyond the cap are dropped (Sidekiq's rules).
      module Morgue # :nodoc:
        module_function

        # Queues the commands on a pipeline or transaction; `set` is the dead
        # set (store.layout.dead_set(queue): one per queue in cluster mode).
        def bury(tx, set, payload, now:, max_jobs:, timeout:)
          tx.call("ZADD", set, now, payload)
          tx.call("ZREMRANGEBYSCORE", set, "-inf", now - timeout)
          tx.call("ZREMRANGEBYRANK", set, 0, -(max_jobs + 1))
        end
      end
    end
  end
end
