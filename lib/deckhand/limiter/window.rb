# frozen_string_literal: true

module Deckhand
  module Limiter
    # At most `size` checks in any sliding period: the strictest rate limit
    # (no burst across a boundary), at the cost of one entry per check kept
    # for one period.
    #
    #   SEARCH = Deckhand::Limiter.window("search", 10, :second)
    #   SEARCH.within_limit { Search.query(text) }
    class Window < Rate
      private

      def check(waited, last)
        Store::Scripts::LimitWindow.new(store).call(@name, @size, period_ms: @period_ms,
          id: SecureRandom.hex(8), waited_ms: waited, last: last)
      end
    end
  end
end
