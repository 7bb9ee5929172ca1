# frozen_string_literal: true

require "deckhand/server"
require "deckhand/api"
require_relative "direct_outcomes"

module Deckhand
  module DropIn
    # Deckhand's retry decision (Server::Run::RetryHandler: retry, retry_for,
    # sidekiq_retry_in, sidekiq_retries_exhausted, the dead set, the death
    # handlers) for a job that failed outside a server, so in no process's
    # in-flight record: the outcome goes straight to the retry, schedule or
    # dead set. Sidekiq::JobRetry#local runs on it.
    #
    #   DirectRetry.new(Deckhand.config).failed(job_hash, "default", HardJob, error)   # => :retry
    #   DirectRetry.new(Deckhand.config).unreadable("{\"class\":", "default", "unexpected end of input")   # => :dead
    class DirectRetry < Server::Run::RetryHandler
      # payload: the raw bytes of an entry that is not JSON (#unreadable);
      # nil for a failed job, which has none: one that cannot be written
      # raises, as in Sidekiq.
      Unit = Struct.new(:queue, :recorded, :payload) do
        def place = nil
      end

      def initialize(config)
        super(config: config, store: config.store, identity: "direct")
        @sets = API.new(config)
      end

      def failed(job, queue, klass, error) = super(Unit.new(queue), job, klass, error)

      # A job that is not JSON: to the dead set with its raw bytes, as a
      # server buries a corrupt payload.
      def unreadable(raw, queue, reason) = corrupt(Unit.new(queue, nil, raw), reason)

      private

      # Each outcome in one command; there is no in-flight mark to clear.
      def write(unit)
        unit.recorded = yield(DirectOutcomes.new(@sets, @store))
      end
    end
  end
end
