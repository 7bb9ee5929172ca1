# frozen_string_literal: true

require_relative "processor_wait"

module Deckhand
  module Server
    module Fetch
      module Idle
        # Which of one capsule's idle processors block inside Redis themselves
        # (Fetch::Idle::ProcessorWait), so that a job pushed to an idle queue
        # starts on the thread that read the BLMOVE's reply, with no other
        # thread woken first: at most PER_QUEUE on each queue the capsule found
        # empty (armed, #arm), never all of the capsule's threads, so a fetched
        # lot always finds a thread blocked on the buffer. A push while one of
        # a queue's two runs its job goes to the other, and the queue's idle
        # waiter thread (Fetch::Idle::IdleWaiter) is armed only while no
        # processor waits on the queue.
        #
        # #close ends every wait under way (CLIENT UNBLOCK of its connection,
        # sent again until the wait is seen to end: a command that reached
        # Redis before its BLMOVE ends nothing) and lets no new one begin, so
        # that no wait moves a job into a quiet process's landing list.
        #
        #   waits = ProcessorWaits.for(capsule, store:, identity:, watch:, balanced: false, logger:)   # nil: none wait
        #   waits.arm([])                   # queue 0 found empty => [] (no processor waits on it yet)
        #   wait = waits.processor_wait     # a processor's own (Fetch::Idle::ProcessorWait)
        #   index = waits.claim(wait)       # => 0: block on queue 0 (nil: take from the buffer)
        #   waits.named(wait, wait.id)      # the id CLIENT UNBLOCK names to end it
        #   waits.release(wait, index, moved: true)   # => true when it was the queue's last
        #   waits.close                     # at quiet
        class ProcessorWaits
          PER_QUEUE = 2
          # The capsules whose processors wait: three threads at least, so
          # one stays on the buffer.
          MIN_CONCURRENCY = 3
          # Seconds between two CLIENT UNBLOCKs of a wait not yet ended.
          AGAIN = 0.005

          # The waits of a capsule whose processors wait in Redis themselves,
          # or nil: threads (a fiber capsule's worker fibers take from the
          # buffer), MIN_CONCURRENCY of them at least, outside cluster mode
          # (a wait would be ended on its node) and auto-balance (a landed job
          # would count against no cap).
          def self.for(capsule, store:, identity:, watch:, balanced:, logger:)
            return nil if capsule.fibers? || capsule.concurrency < MIN_CONCURRENCY || store.cluster? || balanced
            new(store, identity: identity, watch: watch, queues: capsule.queues.size, concurrency: capsule.concurrency, logger: logger)
          end

          # watch: the process's Fetch::Idle::LandingWatch.
          def initialize(store, identity:, watch:, queues:, concurrency:, logger:)
            @store = store
            @identity = identity
            @watch = watch
            @logger = logger
            @limit = concurrency - 1
            @idle = Array.new(queues, false)
            @counts = Array.new(queues, 0)
            @active = {} # a processor's wait => its connection's id (nil until #named)
            @open = true
            @lock = Mutex.new
            @ended = ConditionVariable.new
          end

          # The capsule found its queues empty; `except`: indexes of those
          # not to wait on (paused, throttled). Returns the indexes some
          # processor waits on now: their idle waiter threads stay unarmed.
          def arm(except)
            @lock.synchronize do
              @idle.each_index { |i| @idle[i] = !except.include?(i) }
              @counts.each_index.select { |i| @counts[i].positive? }
            end
          end

          # Queues paused: no new wait on them (a wait under way ends within
          # its timeout).
          def disarm(indexes) = @lock.synchronize { indexes.each { |i| @idle[i] = false } }

          # Whether a processor waits on queue `index` now.
          def covered?(index) = @lock.synchronize { @counts[index].positive? }

          # A processor took `unit` from the buffer: when fetched, its queue
          # has jobs, fetched in lots, and no processor waits on it in Redis
          # until a fetch finds it empty again.
          def took(unit)
            return if unit.nil? || unit.lot.landing?
            index = unit.lot.index
            @lock.synchronize { @idle[index] = false } if @idle[index]
          end

          # A processor's own wait, to pass to #claim.
          def processor_wait = ProcessorWait.new(@store, identity: @identity, watch: @watch)

          # The index of the queue a processor's `wait` should block on, or
          # nil (quiet, no queue idle, each idle queue waited on by PER_QUEUE
          # already, or enough threads in Redis). A connection is opened
          # only for a wait claimed, so an idle capsule opens PER_QUEUE a
          # queue, not one a thread.
          def claim(wait)
            @lock.synchronize do
              next nil unless @open && @counts.sum < @limit
              index = @idle.each_index.select { |i| @idle[i] && @counts[i] < PER_QUEUE }.min_by { |i| @counts[i] }
              next nil unless index
              @counts[index] += 1
              @active[wait] = nil
              index
            end
          end

          # The claimed `wait`'s connection is `id`: #close can end it.
          def named(wait, id) = @lock.synchronize { @active[wait] = id if @active.key?(wait) }

          # The wait on `index` ended (`moved`: with a job). True when no
          # other processor waits on the queue now and the wait brought a job,
          # or when it failed (`moved` nil and `failed`): then the queue's
          # waiter thread takes up the wait, and the fetcher looks for more.
          def release(wait, index, moved:, failed: false)
            @lock.synchronize do
              @counts[index] -= 1
              @active.delete(wait)
              @ended.broadcast
              (moved || failed) && @counts[index].zero?
            end
          end

          # Ends every wait under way and lets no new one begin; returns once
          # each has ended (or after `deadline` seconds, when Redis cannot be
          # told: a wait then ends with its timeout or its connection's error).
          def close(deadline: IdleWaiter::TIMEOUT * 2 + 1.0)
            give_up = Monotonic.now + deadline
            @lock.synchronize { @open = false }
            loop do
              left, ids = @lock.synchronize { [@active.size, @active.values.compact] }
              break if left.zero?
              if Monotonic.now >= give_up
                @logger.warn("#{left} idle processor wait(s) did not end at quiet; they end within #{IdleWaiter::TIMEOUT}s")
                break
              end
              unblock(ids)
              @lock.synchronize { @ended.wait(@lock, AGAIN) unless @active.empty? }
            end
          end

          private

          def unblock(ids)
            ids.each { |id| Store::Connection::Dedicated.unblock(@store, id) }
          rescue Deckhand::RedisError => e
            @logger.warn("could not end an idle processor wait (#{e.message}); trying again")
            sleep AGAIN
          end
        end
      end
    end
  end
end
