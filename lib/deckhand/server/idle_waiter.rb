# frozen_string_literal: true

module Deckhand
  module Server
    # Blocks inside Redis on one queue while its capsule has found every queue
    # empty: BLMOVE wakes the moment a job is pushed and moves it, in the same
    # step, into this process's landing list, which is part of its in-flight
    # record, and the reply carries the job itself: the fetcher hands it to a
    # thread at once, one round trip from push to start. The queue's recovery
    # count version is read in the same round trip, so a recovered job is
    # known as a suspect before it starts.
    #
    # One waiter per queue, each on its own connection, because Redis can block
    # a move on one source list only.
    class IdleWaiter < Component
      TIMEOUT = 2

      attr_reader :queue

      def initialize(queue, index, store:, identity:, fetcher:, logger:, on_fatal: nil)
        super("wait-#{queue}", logger: logger, on_fatal: on_fatal)
        @queue = queue
        @index = index
        @identity = identity
        @store = store
        @fetcher = fetcher
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @armed = false
        @generation = 0
        @outage = Outage.new(logger, "idle wait on queue #{queue}")
      end

      def arm
        @lock.synchronize do
          @armed = true
          @generation += 1
          @wake.signal
        end
      end

      # Waits no more once the wait under way ends (its queue was paused, or
      # is being moved to another shard: Store::QueueMove).
      def disarm = @lock.synchronize { @armed = false }

      # Stops at once, even inside a wait. A move Redis made just before is
      # safe: the landing list is handed back with the rest of the in-flight
      # record.
      def stop
        super
        thread&.kill
        self
      end

      private

      def wake = @lock.synchronize { @wake.signal }

      def run
        conn = nil
        while (generation = wait_until_armed)
          conn ||= @store.dedicated
          begin
            # Keys named at each wait: a queue moved to another shard
            # (Store::QueueMove) is waited on under its new tag.
            keys = @store.layout
            moved, version = conn.wait_move(keys.queue(@queue), keys.landing(@identity, @queue), TIMEOUT, hash: keys.recoveries(@queue),
              field: Store::Recoveries::VERSION)
            @outage.over
          rescue Deckhand::RedisError => e
            conn.close
            conn = nil
            @lock.synchronize { @wake.wait(@lock, @outage.failed(e)) unless stopping? }
            next
          end
          next unless moved
          # Disarmed only if the fetcher has not armed it again meanwhile.
          @lock.synchronize { @armed = false if @generation == generation }
          hand_over(moved, version)
        end
      ensure
        conn&.close
      end

      # The job is safe in the landing list; it goes to a thread once its
      # queue's recovery counts are known (rarely a Redis read).
      def hand_over(payload, version)
        @fetcher.landed(@index, payload, version)
        @outage.over
      rescue Deckhand::RedisError => e
        @lock.synchronize { @wake.wait(@lock, @outage.failed(e)) unless stopping? }
        retry unless stopping?
      end

      # The arming's generation once armed; nil once stopping.
      def wait_until_armed
        @lock.synchronize do
          @wake.wait(@lock) until @armed || stopping?
          stopping? ? nil : @generation
        end
      end
    end
  end
end
