# frozen_string_literal: true

module Deckhand
  class Swarm
    # What the supervisor reads about its workers' memory, from /proc.
    module Memory
      module_function

      # Resident set size in kilobytes, nil when the process is gone or /proc
      # is not there (the memory limit then does nothing).
      def rss_kb(pid)
        File.foreach("/proc/#{pid}/status") { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
        nil
      rescue SystemCallError
        nil
      end

      # The slots whose worker's resident memory is over `limit_kb`, with it.
      def over(slots, limit_kb)
        slots.filter_map do |slot|
          rss = slot.pid && rss_kb(slot.pid)
          [slot, rss] if rss && rss > limit_kb
        end
      end
    end
  end
end
