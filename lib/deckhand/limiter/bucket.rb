# frozen_string_literal: true

module Deckhand
  module Limiter
    # At most `size` checks per clock-aligned period: a minute bucket starts
    # at :00 of every minute (by Redis' clock), whatever time the first check
    # came. Cheap and predictable; allows 2 x size across a boundary.
    #
    #   ERP = Deckhand::Limiter.bucket("erp", 30, :minute)
    #   ERP.within_limit { Erp.post(order) }
    class Bucket < Rate
      private

      def check(waited, last)
        Store::Scripts::LimitBucket.new(store).call(@name, @size, period_ms: @period_ms, waited_ms: waited, last: last)
      end
    end
  end
end
