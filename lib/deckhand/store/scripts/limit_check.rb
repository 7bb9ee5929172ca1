# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # What every limiter's check shares: its state, its metrics and the
      # index of limiter names as KEYS; the limiter's own arguments, then
      # the time the caller waited (ms, or empty) and whether this is its
      # last try, as ARGV. Answers [allowed?, ms until a retry may pass].
      #
      #   class LimitBucket < LimitCheck
      #     lua "limit_bucket", uses: ["limit"]
      #     def call(name, size, period_ms:, waited_ms: nil, last: true) =
      #       check("bucket", name, [size, period_ms], waited_ms, last)
      #   end
      class LimitCheck < Script
        private

        def check(kind, name, args, waited_ms, last)
          ok, ms = run(keys_of(kind, name), [name, *args, waited_ms.to_s, last ? 1 : 0])
          [ok == 1, ms]
        end

        def keys_of(kind, name) = [LimitKeys.state(kind, name), LimitKeys.metrics(name), LimitKeys::INDEX]
      end
    end
  end
end
