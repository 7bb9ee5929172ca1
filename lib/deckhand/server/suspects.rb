# frozen_string_literal: true

module Deckhand
  module Server
    # Runs suspects one at a time in a process, each recorded in Redis before it
    # starts. A suspect is a job recovered from a process that died while it may
    # have been running it: the recover script marks its payload. Should the
    # process die again, the reaper then knows which suspect was running and
    # counts that one alone, so the innocent jobs that happened to share a
    # crashed process are not taken for the poison pill.
    #
    # Only recovered jobs pay for this (two Redis calls and the wait for their
    # turn); every other job runs as before.
    #
    #   suspects = Suspects.for(identity, store: store, logger: logger)
    #   suspects.enter(unit) if suspects.suspect?(unit)   # before running it
    #   suspects.leave(unit)                              # once its outcome is settled
    class Suspects
      MARKER = '"deckhand_recovered":'
      TTL = 24 * 60 * 60 # the record only matters until a reaper reads it
      RECORD_ATTEMPTS = 5

      @registry = {}
      @registry_lock = Mutex.new

      class << self
        # One per process identity, shared by its capsules.
        def for(identity, store:, logger:)
          @registry_lock.synchronize { @registry[identity] ||= new(identity, store: store, logger: logger) }
        end

        def forget(identity) = @registry_lock.synchronize { @registry.delete(identity) }
      end

      attr_reader :current

      def initialize(identity, store:, logger:)
        @key = Store::Keys.suspect(identity)
        @store = store
        @logger = logger
        @lock = Mutex.new
        @free = ConditionVariable.new
        @current = nil
      end

      def suspect?(unit) = unit.payload.include?(MARKER)

      # Waits for this process's running suspect, if any, to finish; then
      # records `unit` as the one running.
      def enter(unit)
        @lock.synchronize do
          @free.wait(@lock) while @current
          @current = unit
        end
        record(unit.field)
      end

      def leave(unit)
        return unless @current.equal?(unit)
        begin
          @store.call("DEL", @key)
        rescue RedisClient::Error, Deckhand::ConnectionError => e
          @logger.warn("could not clear the running-suspect record (#{e.message})")
        end
        @lock.synchronize do
          @current = nil
          @free.signal
        end
      end

      private

      # Without the record a crash goes uncounted (one more crash before the
      # quarantine), so it is worth a few tries; never worth not running the job.
      def record(field)
        attempt = 0
        begin
          @store.call("SET", @key, field, "EX", TTL)
        rescue RedisClient::Error, Deckhand::ConnectionError => e
          attempt += 1
          if attempt < RECORD_ATTEMPTS
            sleep 0.1 * attempt
            retry
          end
          @logger.warn("could not record a recovered job as running (#{e.message}); running it anyway")
        end
      end
    end
  end
end
