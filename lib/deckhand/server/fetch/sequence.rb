# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      # Numbers the in-flight fields of one process. Shared by its fetchers, so two
      # capsules serving the same queue never write the same field.
      class Sequence
        def initialize
          @lock = Mutex.new
          @last = 0
        end

        # Reserves `count` numbers; returns the one before the first.
        def reserve(count)
          @lock.synchronize do
            base = @last
            @last += count
            base
          end
        end
      end
    end
  end
end
