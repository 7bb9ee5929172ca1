# frozen_string_literal: true

require_relative "../component"
require_relative "../sleeper"

module Deckhand
  module Operations
    # Sends what StatsD buffered every INTERVAL seconds, and once more when
    # the server stops, on a supervised thread of its own.
    #
    #   flusher = Flusher.new(statsd, logger: logger).start
    #   flusher.close   # the last flush
    class Flusher < Component
      INTERVAL = 1.0

      def initialize(statsd, logger:)
        super("statsd-flush", logger: logger)
        @statsd = statsd
        @sleeper = Sleeper.new
      end

      def close
        stop
        join(2)
        @statsd.flush
      end

      private

      def wake = @sleeper.stop

      def run
        @statsd.flush while @sleeper.sleep(INTERVAL)
      end
    end
  end
end
