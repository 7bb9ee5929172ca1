# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_leaky.lua: one check of a leaky bucket limiter.
      #
      #   LimitLeaky.new(store).call("github", 60, period_ms: 60_000)   # => [true, 0] or [false, ms until one more fits]
      class LimitLeaky < Script
        lua "limit_leaky", uses: ["limit"]

        def call(name, size, period_ms:, waited_ms: nil, last: true)
          ok, ms = run([LimitKeys.state("leaky", name), LimitKeys.metrics(name), LimitKeys::INDEX],
            [name, size, period_ms, waited_ms.to_s, last ? 1 : 0])
          [ok == 1, ms]
        end
      end
    end
  end
end
