# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_concurrent.lua: takes one of a concurrent limiter's `size` slots
      # for `holder` (reclaiming slots whose lock expired), in one round trip.
      #
      #   LimitConcurrent.new(store).call("stripe", 5, holder: "ab12", lock_ms: 30_000)
      #   # => [true, 0] or [false, ms until the earliest lock expires]
      class LimitConcurrent < LimitCheck # :nodoc:
        lua "limit/limit_concurrent", uses: ["guard", "limit"]

        def call(name, size, holder:, lock_ms:, waited_ms: nil, last: true)
          check("concurrent", name, [size, holder, lock_ms], waited_ms, last)
        end
      end
    end
  end
end
