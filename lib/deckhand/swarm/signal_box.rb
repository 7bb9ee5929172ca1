# frozen_string_literal: true

module Deckhand
  class Swarm
    # The supervisor's signals, read on its main loop: a trap handler may not
    # take locks, so it only writes the signal's name to a pipe. CHLD just
    # wakes the loop so a dead worker is replaced at once.
    #
    # A forked worker inherits these handlers until it installs its own; a
    # signal that lands in that gap is kept for the worker to replay rather
    # than written to the supervisor's pipe, where the supervisor would take
    # a worker's TERM for its own.
    class SignalBox # :nodoc:
      FORWARDED = %w[TERM INT TSTP TTIN].freeze

      def initialize
        @reader, @writer = IO.pipe
        @owner = ::Process.pid
        @early = []
      end

      def trap
        (FORWARDED + ["CHLD"]).each do |name|
          Signal.trap(name) do
            if ::Process.pid == @owner
              @writer.write_nonblock("#{name}\n", exception: false)
            elsif name != "CHLD"
              @early << name
            end
          end
        end
      end

      # Signal names received, waiting up to `timeout` seconds for the first.
      def wait(timeout)
        return [] unless @reader.wait_readable(timeout)
        data = @reader.read_nonblock(4096, exception: false)
        data.is_a?(String) ? data.split("\n").reject { |name| name == "CHLD" } : []
      end

      # In a new worker: drops the supervisor's pipe and CHLD handler. Returns
      # the list the inherited handlers fill until the worker traps its own.
      def close_in_child
        Signal.trap("CHLD", "DEFAULT")
        @reader.close
        @writer.close
        @early
      end
    end
  end
end
