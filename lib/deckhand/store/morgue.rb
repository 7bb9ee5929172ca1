# frozen_string_literal: true

module Deckhand
  class Store
    # Writes to the dead set, trimming it as it goes: entries older than the
    # timeout and the oldest beyond the cap are dropped (Sidekiq's rules).
    module Morgue
      module_function

      # Queues the commands on a pipeline or transaction.
      def bury(tx, payload, now:, max_jobs:, timeout:)
        tx.call("ZADD", Keys::DEAD, now, payload)
        tx.call("ZREMRANGEBYSCORE", Keys::DEAD, "-inf", now - timeout)
        tx.call("ZREMRANGEBYRANK", Keys::DEAD, 0, -(max_jobs + 1))
      end
    end
  end
end
