# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # What every limiter's check shares: its state, its metrics and (plain
      # mode) the index of limiter names as KEYS; the limiter's own
      # arguments, then the time the caller waited (ms, or empty) and whether
      # this is its last try, as ARGV. Answers [allowed?, ms until a retry
      # may pass].
      #
      #   class LimitBucket < LimitCheck
      #     lua "limit/limit_bucket", uses: ["limit"]
      #     def call(name, size, period_ms:, waited_ms: nil, last: true) =
      #       check("bucket", name, [size, period_ms], waited_ms, last)
      #   end
      #
      # In cluster mode the index (keys::LIMITS, slot {deckhand}) cannot go
      # in the script with the limiter's keys (slot {limit:<name>}): the
      # script says when the name is due there (its first check, then at
      # most once a minute) and the name is written here, with the time the
      # script read from Redis.
      class LimitCheck < Script # :nodoc:
        DAY_MS = 86_400_000

        private

        def check(kind, name, args, waited_ms, last)
          ok, ms, index_at = run(keys_of(kind, name), [name, *args, waited_ms.to_s, last ? 1 : 0])
          index(name, index_at) if index_at.to_i.positive?
          [ok == 1, ms]
        end

        def keys_of(kind, name)
          list = [keys.limit(kind, name), keys.limit_metrics(name)]
          keys.plain? ? list << keys::LIMITS : list
        end

        def index(name, at)
          @store.pipelined do |pipe|
            pipe.call("ZADD", keys::LIMITS, at, name)
            pipe.call("ZREMRANGEBYSCORE", keys::LIMITS, "-inf", at - DAY_MS)
          end
        end
      end
    end
  end
end
