# frozen_string_literal: true

require_relative "../component"

module Deckhand
  class Swarm
    # A worker's watch on its supervisor. The supervisor holds the write end
    # of the lifeline pipe; the kernel closes it when the supervisor dies,
    # however it dies, and the read here ends. Then the worker stops as on
    # TERM: a SIGKILLed supervisor leaves no worker running on its own. A
    # failed read is logged and tried again, like any component's crash.
    #
    #   Lifeline.new(reader, logger: logger).start   # TERMs this process once the supervisor is gone
    class Lifeline < Component # :nodoc:
      TERM = -> { ::Process.kill("TERM", ::Process.pid) }

      # on_gone: what to do once the supervisor is gone.
      def initialize(reader, logger:, on_gone: TERM)
        super("lifeline", logger: logger)
        @reader = reader
        @on_gone = on_gone
      end

      private

      def run
        @reader.read
        return if stopping?
        @logger.warn("the swarm supervisor is gone: stopping")
        @on_gone.call
      end
    end
  end
end
