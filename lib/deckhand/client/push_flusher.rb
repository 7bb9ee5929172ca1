# frozen_string_literal: true

require_relative "../component"

module Deckhand
  class Client
    # The reliable-push buffer's thread (Client::PushBuffer): writes the held
    # pushes in order while Redis answers, backs off while it does not. A
    # supervised component: an error it does not expect is logged with its
    # backtrace and the thread starts again, the push it was writing still
    # at the head of the line. It never gives up, or the held jobs would
    # wait for nothing.
    #
    #   flusher = PushFlusher.new(buffer, logger: logger).start
    #   flusher.stop.join(1)
    class PushFlusher < Component # :nodoc:
      DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2].freeze
      RESTARTS = [0.1, 0.5, 1, 2].freeze

      def initialize(buffer, logger:)
        super("push-buffer", logger: logger, delays: RESTARTS, max_crashes: nil)
        @buffer = buffer
        @sleeper = Sleeper.new
      end

      private

      def run
        failures = 0
        until stopping?
          next unless @buffer.wait(1)
          begin
            failures = @buffer.flush_one ? 0 : failures + 1
          rescue ConnectionError
            failures += 1
          end
          @sleeper.sleep(DELAYS[failures - 1] || DELAYS.last) if failures.positive?
        end
      end

      def wake
        @sleeper.stop
        @buffer.nudge
      end
    end
  end
end
