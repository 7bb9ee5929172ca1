# frozen_string_literal: true

module Deckhand
  module Operations
    # Server middleware, first in the chain, that tells the hub each job's
    # class, queue, execution time and whether it raised. Installed at boot
    # when metrics_port or statsd is set; a job interrupted by shutdown (and
    # handed back) is not counted.
    #
    #   config.server_middleware.prepend(JobMetrics, hub)
    class JobMetrics
      def initialize(hub)
        @hub = hub
      end

      def call(_job, payload, queue)
        started = Monotonic.now
        begin
          result = yield
        rescue Deckhand::Shutdown
          raise
        rescue Exception # rubocop:disable Lint/RescueException -- a job's failure, whatever its class, is counted and passed on
          record(payload, queue, started, true)
          raise
        end
        record(payload, queue, started, false)
        result
      end

      private

      def record(payload, queue, started, failed)
        seconds = Monotonic.now - started
        @hub.job((payload["wrapped"] || payload["class"]).to_s, queue.to_s, seconds, failed)
      end
    end
  end
end
