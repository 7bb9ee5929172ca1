# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_bucket.lua: one check of a clock-aligned bucket limiter.
      #
      #   LimitBucket.new(store).call("erp", 30, period_ms: 60_000)   # => [true, 0] or [false, ms to the next bucket]
      class LimitBucket < Script
        lua "limit_bucket", uses: ["limit"]

        def call(name, size, period_ms:, waited_ms: nil, last: true)
          ok, ms = run([LimitKeys.state("bucket", name), LimitKeys.metrics(name), LimitKeys::INDEX],
            [name, size, period_ms, waited_ms.to_s, last ? 1 : 0])
          [ok == 1, ms]
        end
      end
    end
  end
end
