# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_window.lua: one check of a sliding window limiter; `id` names
      # the check (unique) in the window.
      #
      #   LimitWindow.new(store).call("search", 10, period_ms: 1000, id: "ab12")   # => [true, 0] or [false, ms]
      class LimitWindow < LimitCheck # :nodoc:
        lua "limit/limit_window", uses: ["guard", "limit"]

        def call(name, size, period_ms:, id:, waited_ms: nil, last: true)
          check("window", name, [size, period_ms, id], waited_ms, last)
        end
      end
    end
  end
end
