# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_bucket.lua: one check of a clock-aligned bucket limiter.
      #
      #   LimitBucket.new(store).call("erp", 30, period_ms: 60_000)   # => [true, 0] or [false, ms to the next bucket]
      class LimitBucket < LimitCheck # :nodoc:
        lua "limit/limit_bucket", uses: ["guard", "limit"]

        def call(name, size, period_ms:, waited_ms: nil, last: true) = check("bucket", name, [size, period_ms], waited_ms, last)
      end
    end
  end
end
