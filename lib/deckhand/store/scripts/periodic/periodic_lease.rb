# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs periodic_lease.lua: takes, renews or gives up the periodic
      # leader's lease. Each returns [held, token or the current holder's].
      #
      #   lease = PeriodicLease.new(store)
      #   held, token = lease.acquire("host:1:abc", ttl_ms: 6000)   # => [true, "7:host:1:abc"]
      #   lease.renew(token, ttl_ms: 6000)                           # => [true, token]
      #   lease.release(token)
      class PeriodicLease < Script # :nodoc:
        lua "periodic/periodic_lease"

        def acquire(identity, ttl_ms:) = lease("acquire", identity, ttl_ms)

        def renew(token, ttl_ms:) = lease("renew", token, ttl_ms)

        def release(token) = lease("release", token, 0)

        private

        def lease(op, who, ttl_ms)
          held, token = run([keys::PERIODIC_LEADER, keys::PERIODIC_FENCE], [op, who, ttl_ms.to_i])
          [held == 1, token]
        end
      end
    end
  end
end
