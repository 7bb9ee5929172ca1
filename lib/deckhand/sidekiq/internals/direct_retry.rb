# frozen_string_literal: true

require "deckhand/server"
require "deckhand/api"

module Deckhand
  module DropIn
    # Deckhand's retry decision (Server::RetryHandler: retry, retry_for,
    # sidekiq_retry_in, sidekiq_retries_exhausted, the dead set, the death
    # handlers) for a job that failed outside a server, so in no process's
    # in-flight record: the outcome goes straight to the retry, schedule or
    # dead set. Sidekiq::JobRetry#local runs on it.
    #
    #   DirectRetry.new(Deckhand.config).failed(job_hash, "default", HardJob, error)   # => :retry
    class DirectRetry < Server::RetryHandler
      Unit = Struct.new(:queue, :recorded) do
        def place = nil
      end

      def initialize(config)
        super(config: config, store: config.store, identity: "direct")
        @sets = API.new(config)
      end

      def failed(job, queue, klass, error) = super(Unit.new(queue), job, klass, error)

      private

      # Each outcome in one command; there is no in-flight mark to clear.
      def write(unit)
        unit.recorded = yield(Outcomes.new(@sets, @store))
      end

      # Settle's outcomes, written to the sets themselves.
      class Outcomes
        def initialize(sets, store)
          @sets = sets
          @store = store
        end

        def retry(_place, at:, payload:) = written { @sets.retries.add(payload, at) }

        def reschedule(_place, at:, payload:) = written { @sets.scheduled.add(payload, at) }

        def bury(_place, payload:, now:, timeout:, max_jobs:, unlock: nil)
          written do
            @sets.dead.bury(payload, notify: false, now: now)
            release(unlock)
          end
        end

        def drop(_place, unlock: nil) = written { release(unlock) }

        private

        def written
          yield
          :written
        end

        def release(lock)
          Store::UniqueLocks.release(@store, lock[0], lock[1]) if lock
        end
      end
    end
  end
end
