# frozen_string_literal: true

module Deckhand
  module Server
    # Resident memory of a process in kilobytes: this one (the heartbeat reports
    # it) or another (the swarm supervisor watches its workers). Nil when the
    # process is gone or cannot be read.
    module ResidentMemory # :nodoc:
      module_function

      def rss_kb(pid = ::Process.pid)
        status = "/proc/#{pid}/status"
        if File.readable?(status)
          File.foreach(status) { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
          nil
        else
          kb = `ps -o rss= -p #{Integer(pid)}`.to_i # no /proc (macOS, BSD)
          kb.positive? ? kb : nil
        end
      rescue SystemCallError
        nil
      end
    end
  end
end
