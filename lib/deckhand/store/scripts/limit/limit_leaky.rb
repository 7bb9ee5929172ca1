# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_leaky.lua: one check of a leaky bucket limiter.
      #
      #   LimitLeaky.new(store).call("github", 60, period_ms: 60_000)   # => [true, 0] or [false, ms until one more fits]
      class LimitLeaky < LimitCheck # :nodoc:
        lua "limit/limit_leaky", uses: ["guard", "limit"]

        def call(name, size, period_ms:, waited_ms: nil, last: true) = check("leaky", name, [size, period_ms], waited_ms, last)
      end
    end
  end
end
