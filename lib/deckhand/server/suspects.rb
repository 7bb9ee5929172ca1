# frozen_string_literal: true

module Deckhand
  module Server
    # Keeps track of suspects while they run. A suspect is a job recovered from
    # a process that died while it may have been running it: the recover script
    # marks its payload with its recovery count. Each suspect is recorded in
    # Redis before it starts and forgotten when it finishes, so should this
    # process die too, the reaper counts the suspects that were running and no
    # other (see store/scripts/recover.lua).
    #
    # A suspect on its last chance (one more recovery makes it a poison pill)
    # runs alone among last-chance suspects in this process: the crash that
    # quarantines a job is then pinned on that job and not on another
    # last-chance job that happened to share the process.
    #
    # Only recovered jobs pay for this (two Redis calls each); every other job
    # runs as before.
    #
    #   suspects = Suspects.for(identity, store: store, logger: logger)
    #   suspects.enter(unit) if suspects.suspect?(unit)   # before running it
    #   suspects.leave(unit) if suspects.running?(unit)   # once its outcome is settled
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

      # Recovery count from which a suspect runs alone (config.max_recoveries - 1).
      attr_writer :last_chance

      def initialize(identity, store:, logger:)
        @key = Store::Keys.suspects(identity)
        @store = store
        @logger = logger
        @last_chance = 2
        @lock = Mutex.new
        @free = ConditionVariable.new
        @alone = nil
        @running = {}.compare_by_identity
      end

      def suspect?(unit) = unit.payload.include?(MARKER)

      # Read by the thread that entered `unit`, which wrote it: no lock needed.
      def running?(unit) = @running.key?(unit)

      def enter(unit)
        if count(unit) >= @last_chance
          @lock.synchronize do
            @free.wait(@lock) while @alone
            @alone = unit
          end
        end
        record(unit.field)
        @lock.synchronize { @running[unit] = true }
      end

      def leave(unit)
        forget(unit.field)
        @lock.synchronize do
          @running.delete(unit)
          next unless @alone.equal?(unit)
          @alone = nil
          @free.signal
        end
      end

      private

      def count(unit)
        at = unit.payload.index(MARKER) + MARKER.size
        unit.payload[at, 6].to_i
      end

      # Without the record a crash goes uncounted (one more crash before the
      # quarantine), so it is worth a few tries; never worth not running the job.
      def record(field)
        attempt = 0
        begin
          @store.pipelined do |pipe|
            pipe.call("SADD", @key, field)
            pipe.call("EXPIRE", @key, TTL)
          end
        rescue Deckhand::RedisError => e
          attempt += 1
          if attempt < RECORD_ATTEMPTS
            sleep 0.1 * attempt
            retry
          end
          @logger.warn("could not record a recovered job as running (#{e.message}); running it anyway")
        end
      end

      def forget(field)
        @store.call("SREM", @key, field)
      rescue Deckhand::RedisError => e
        @logger.warn("could not clear a recovered job's running record (#{e.message})")
      end
    end
  end
end
