# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_points.lua: spends points of a points limiter's budget (take),
      # or gives back the difference once the real cost is known (adjust).
      #
      #   points = LimitPoints.new(store)
      #   points.take("shopify", 1000, refill: 50, period_ms: 1000, amount: 50)   # => [true, 0] or [false, ms]
      #   points.adjust("shopify", 1000, refill: 50, period_ms: 1000, amount: 20) # 20 points back
      class LimitPoints < LimitCheck # :nodoc:
        lua "limit/limit_points", uses: ["guard", "limit"]

        def take(name, size, refill:, period_ms:, amount:, waited_ms: nil, last: true)
          check("points", name, [size, refill, period_ms, "take", amount], waited_ms, last)
        end

        def adjust(name, size, refill:, period_ms:, amount:)
          check("points", name, [size, refill, period_ms, "adjust", amount], nil, false)
          nil
        end
      end
    end
  end
end
