# frozen_string_literal: true

module Deckhand
  class Swarm
    # What the supervisor reads about its workers' memory.
    module Memory # :nodoc:
      module_function

      # The slots whose worker's resident memory is over `limit_kb`, with it.
      def over(slots, limit_kb)
        slots.filter_map do |slot|
          rss = slot.pid && Server::ResidentMemory.rss_kb(slot.pid)
          [slot, rss] if rss && rss > limit_kb
        end
      end
    end
  end
end
