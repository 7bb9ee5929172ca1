# frozen_string_literal: true

module Deckhand
  class Batch
    # Server middleware (installed first, so outermost) that records the
    # outcome of every job carrying a "bid": success once perform returned,
    # failure when it raised. Both are written before the job is acknowledged,
    # so a crash in between re-runs the job, and the re-run is not counted
    # twice. While Redis is away it waits, like the retry handler: the job
    # stays in-flight, and a shutdown hands it back. Jobs without a bid pay one
    # Hash lookup.
    class ServerMiddleware
      CURRENT = :deckhand_batch_bid
      DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5].freeze

      def initialize(config)
        @config = config
      end

      def call(_job, payload, _queue)
        bid = payload["bid"] or return yield
        begin
          previous = Thread.current[CURRENT]
          Thread.current[CURRENT] = bid
          yield
        rescue Deckhand::Shutdown
          raise
        rescue Exception => e # rubocop:disable Lint/RescueException -- recorded, then re-raised untouched
          persist { Tracker.new(@config).failure(bid, payload, e) }
          raise
        ensure
          Thread.current[CURRENT] = previous
        end
        persist { Tracker.new(@config).success(bid, payload["jid"]) }
      end

      private

      def persist
        attempt = 0
        begin
          yield
        rescue Deckhand::RedisError => e
          @config.logger.warn("could not record a batch job's outcome (#{e.message}); retrying") if attempt.zero?
          sleep DELAYS[attempt] || DELAYS.last
          attempt += 1
          retry
        end
      end
    end
  end
end
