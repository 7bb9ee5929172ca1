# frozen_string_literal: true

module Deckhand
  # Whether something stands in for Redis on this thread, so code that would
  # read Redis for its own bookkeeping (the fleet's timestamp format, an
  # inline job's unique lock) leaves it alone. Deckhand::Testing registers
  # itself here when it is loaded: its fake and inline modes never reach
  # Redis. Nothing is registered in a plain process.
  #
  #   Deckhand::RedisStandIn.register { !Deckhand::Testing.disabled? }
  #   Deckhand::RedisStandIn.active?   # => true in fake or inline mode
  module RedisStandIn
    @check = nil

    class << self
      # The block answers, for the calling thread, whether Redis is stood in
      # for. One at a time: a later registration replaces the earlier one.
      def register(&check)
        raise ArgumentError, "give a block that answers true while Redis is stood in for" unless check
        @check = check
      end

      def active? = @check ? @check.call == true : false
    end
  end
end
