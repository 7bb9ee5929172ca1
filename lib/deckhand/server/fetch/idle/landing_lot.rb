# frozen_string_literal: true

module Deckhand
  module Server
    module Fetch
      module Idle
        # Stands in for a lot for the jobs an idle waiter landed and handed out at
        # once: each sits in the process's landing list for its queue, which is
        # part of its in-flight record, and leaves it when settled (on the next
        # round trip after a success, with its outcome after a failure).
        #
        #   lot = LandingLot.new("default", 0)
        #   unit = UnitOfWork.new(lot, 0, raw, false)
        #   unit.place   # => [:landing, raw]
        class LandingLot
          attr_reader :queue, :queue_name, :index

          def initialize(queue, index)
            @queue = queue
            @queue_name = Store::Layout::PartitionNames.base(queue)
            @index = index
          end

          def landing? = true

          # Each landed job settles on its own: always news.
          def settle(_position, marked: false) = true

          def place(_position, payload) = [:landing, payload]
        end
      end
    end
  end
end
