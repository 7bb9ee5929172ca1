# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_concurrent.lua: takes one of a concurrent limiter's `size` slots
      # for `holder` (reclaiming slots whose lock expired), in one round trip.
      #
      #   LimitConcurrent.new(store).call("stripe", 5, holder: "ab12", lock_ms: 30_000)
      #   # => [true, 0] or [false, ms until the earliest lock expires]
      class LimitConcurrent < Script
        lua "limit_concurrent", uses: ["limit"]

        def call(name, size, holder:, lock_ms:, waited_ms: nil, last: true)
          ok, ms = run([LimitKeys.state("concurrent", name), LimitKeys.metrics(name), LimitKeys::INDEX],
            [name, size, holder, lock_ms, waited_ms.to_s, last ? 1 : 0])
          [ok == 1, ms]
        end
      end
    end
  end
end
