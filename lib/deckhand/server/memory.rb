# frozen_string_literal: true

module Deckhand
  module Server
    # Resident memory of this process in kilobytes.
    module Memory
      STATUS = "/proc/self/status"

      module_function

      def rss_kb
        if File.readable?(STATUS)
          File.foreach(STATUS) { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
          0
        else
          `ps -o rss= -p #{::Process.pid}`.to_i
        end
      rescue SystemCallError
        0
      end
    end
  end
end
