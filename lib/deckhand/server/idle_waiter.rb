# frozen_string_literal: true

module Deckhand
  module Server
    # Blocks inside Redis on one queue while its capsule has found every queue
    # empty: BLMOVE wakes the moment a job is pushed and moves it, in the same
    # step, into this process's landing list, which is part of its in-flight
    # record. The fetcher files it from there on its next round trip.
    #
    # One waiter per queue, each on its own connection, because Redis can block
    # a move on one source list only.
    class IdleWaiter
      TIMEOUT = 2

      attr_reader :queue

      def initialize(queue, store:, landing:, fetcher:, logger:)
        @queue = queue
        @source = Store::Keys.queue(queue)
        @landing = landing
        @store = store
        @fetcher = fetcher
        @logger = logger
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @armed = false
        @stopping = false
      end

      def start
        @thread = Thread.new do
          Thread.current.name = "deckhand-wait-#{@queue}"
          run
        end
        self
      end

      def arm
        @lock.synchronize do
          @armed = true
          @wake.signal
        end
      end

      # Stops at once. A move Redis made just before is safe: the landing list is
      # handed back with the rest of the in-flight record.
      def stop
        @lock.synchronize do
          @stopping = true
          @wake.signal
        end
        @thread&.kill
      end

      def join = @thread&.join

      private

      def run
        conn = nil
        failures = 0
        while wait_until_armed
          conn ||= @store.dedicated
          begin
            moved = conn.blocking_call(TIMEOUT, "BLMOVE", @source, @landing, "RIGHT", "LEFT", TIMEOUT)
            failures = 0
          rescue Deckhand::RedisError => e
            @logger.warn("idle wait on #{@queue} failed (#{e.message}); retrying") if failures.zero?
            conn.close
            conn = nil
            sleep [0.1 * (2**failures), 2].min
            failures += 1
            next
          end
          next unless moved
          @lock.synchronize { @armed = false }
          @fetcher.landed(@queue)
        end
      ensure
        conn&.close
      end

      def wait_until_armed
        @lock.synchronize do
          @wake.wait(@lock) until @armed || @stopping
          !@stopping
        end
      end
    end
  end
end
