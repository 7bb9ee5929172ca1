# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # limit_release.lua: gives a concurrent limiter's slot back and wakes
      # one waiter.
      #
      #   LimitRelease.new(store).call("stripe", 5, holder: "ab12", lock_ms: 30_000)   # => true
      class LimitRelease < Script # :nodoc:
        lua "limit/limit_release", uses: ["guard"]

        def call(name, size, holder:, lock_ms:)
          run([keys.limit("concurrent", name), keys.limit_wake(name)], [holder, size, lock_ms]) == 1
        end
      end
    end
  end
end
