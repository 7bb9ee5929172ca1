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
      #   class LimitPoints < LimitCheck
      #     lua "limit/limit_points", uses: ["guard", "limit"]
      #     def take(name, size, refill:, period_ms:, amount:, waited_ms: nil, last: true) =
      #       check("points", name, [size, refill, period_ms, "take", amount], waited_ms, last)
      #   end
      #
      # A limiter whose check is its script's only call is a row of the
      # table below this class, not a file of its own.
      #
      # In cluster mode the index (keys::LIMITS, slot {deckhand}) cannot go
      # in the script with the limiter's keys (slot {limit:<name>}): the
      # script says when the name is due there (its first check, then at
      # most once a minute) and the name is written here, with the time the
      # script read from Redis.
      class LimitCheck < Script # :nodoc:
        DAY_MS = 86_400_000
        # The Lua every check needs, and what the limiters whose state is a
        # sorted set of places (window, concurrent) need besides.
        LIB = ["guard", "limit"].freeze
        PLACES = [*LIB, "limit_place"].freeze

        # Makes this class the check of the limiters of `kind`, its script
        # needing the Lua `uses`: its #call takes the limiter's name and
        # size, then `keywords` (sent as ARGV in that order), waited_ms:
        # and last:.
        def self.checks(kind, keywords, uses)
          lua "limit/limit_#{kind}", uses: uses
          define_method(:call) do |name, size, waited_ms: nil, last: true, **given|
            unless given.keys.sort == keywords.sort
              raise ArgumentError, "#{self.class.name}#call takes the keywords #{keywords.join(", ")}; given #{given.keys.join(", ")}"
            end
            check(kind, name, [size, *given.values_at(*keywords)], waited_ms, last)
          end
        end

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

      # The limiters whose check is one call of their script, each a
      # LimitCheck named for its script: constant => [kind, the keywords
      # its #call takes after name and size, in ARGV order, the Lua its
      # script needs].
      #
      #   LimitBucket.new(store).call("erp", 30, period_ms: 60_000)                      # clock-aligned buckets
      #   LimitLeaky.new(store).call("github", 60, period_ms: 60_000)                    # a leaky bucket
      #   LimitWindow.new(store).call("search", 10, period_ms: 1000, id: "ab12")         # a sliding window; id names the check
      #   LimitConcurrent.new(store).call("stripe", 5, holder: "ab12", lock_ms: 30_000)  # one of 5 slots, expired locks reclaimed
      #   # => [true, 0], or [false, ms until a retry may pass]
      {
        LimitBucket: ["bucket", [:period_ms], LimitCheck::LIB],
        LimitLeaky: ["leaky", [:period_ms], LimitCheck::LIB],
        LimitWindow: ["window", [:period_ms, :id], LimitCheck::PLACES],
        LimitConcurrent: ["concurrent", [:holder, :lock_ms], LimitCheck::PLACES]
      }.each { |constant, (kind, keywords, uses)| const_set(constant, Class.new(LimitCheck) { checks(kind, keywords, uses) }) }
    end
  end
end
