# frozen_string_literal: true

module Deckhand
  class Swarm
    # What the supervisor reads about its workers' memory.
    module Memory # :nodoc:
      module_function

      # What to say when a worker is over `limit_kb` from its start (`seen`
      # says where its size was seen): every worker would then be replaced
      # at its first check, again and again.
      def fresh_over(limit_kb, rss_kb, seen)
        "swarm: --max-memory #{limit_kb / 1024} MB is below what a fresh worker uses: #{seen} #{rss_kb / 1024} MB. " \
          "Every worker would be replaced at its first check, every #{Swarm::MEMORY_CHECK_INTERVAL.round}s, " \
          "with no job finished in between. Set --max-memory (max_memory:) above #{rss_kb / 1024} MB, with room " \
          "for what the jobs add"
      end

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
