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
      # The thread (fiber) local holding the bid of the batch job running on it.
      CURRENT = :deckhand_batch_bid

      # Whether the job has no batch: this middleware only yields (Middleware::Chain#passes?).
      def self.deckhand_passes?(payload) = payload["bid"].nil?

      def initialize(config)
        @config = config
      end

      # Runs the job, then records its outcome in its batch (a job without a bid runs as is).
      def call(_job, payload, _queue)
        bid = payload["bid"] or return yield
        begin
          previous = Thread.current[CURRENT]
          Thread.current[CURRENT] = bid
          yield
        rescue Deckhand::Shutdown, Deckhand::Interrupted # it runs again: no outcome yet
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

      def persist(&) = Tracker.persist(@config, "recording a batch job's outcome", &)
    end
  end
end
