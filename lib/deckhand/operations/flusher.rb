# frozen_string_literal: true

require_relative "../component"
require_relative "../sleeper"

module Deckhand
  module Operations
    # Sends what StatsD buffered every INTERVAL seconds, and once more when
    # the server stops, on a supervised thread of its own; with `looks`
    # (the eviction watch's last look, read each time), each new look too.
    #
    #   flusher = Flusher.new(statsd, logger: logger, looks: -> { launcher.eviction_watch.look }).start
    #   flusher.close   # the last flush
    class Flusher < Component
      INTERVAL = 1.0

      def initialize(statsd, logger:, looks: nil)
        super("statsd-flush", logger: logger)
        @statsd = statsd
        @looks = looks
        @sent = nil
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
        while @sleeper.sleep(INTERVAL)
          look
          @statsd.flush
        end
      end

      def look
        look = @looks&.call
        return if look.nil? || look.equal?(@sent) || look.nodes.empty?
        @statsd.redis_memory(look)
        @sent = look
      end
    end
  end
end
