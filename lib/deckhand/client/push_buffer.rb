# frozen_string_literal: true

module Deckhand
  class Client
    # Reliable push (opt-in, `config.reliable_push = true`): when Redis cannot
    # be reached, pushes wait here, in memory and in order, instead of
    # failing, and a background thread writes them as soon as Redis answers
    # again (and at exit, for up to `FLUSH_AT_EXIT` seconds). While anything
    # waits, new pushes queue behind it, so jobs reach Redis in the order they
    # were pushed. At most `limit` jobs wait; past that a push raises, nothing
    # is dropped silently.
    #
    # What it cannot save: jobs still waiting when the process dies (SIGKILL,
    # a crash, Redis down through the whole exit flush) are lost, and the
    # process logs how many. A write whose reply was lost may have reached
    # Redis and is written again: such a job runs twice (at least once, as
    # everywhere in Deckhand).
    #
    #   buffer = PushBuffer.new(config)
    #   buffer.write(queued, scheduled)   # to Redis, or into the buffer when Redis is away
    class PushBuffer
      FLUSH_AT_EXIT = 5.0
      DELAYS = [0.05, 0.1, 0.25, 0.5, 1, 2].freeze

      def initialize(config)
        @config = config
        @limit = config.reliable_push_limit
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @pending = [] # [queued, scheduled, scheduled_queues, size]
        @size = 0
        @outage = false
        @thread = nil
        at_exit { flush_at_exit }
      end

      # Jobs waiting for Redis.
      def size = @lock.synchronize { @size }

      # scheduled_queues: the queue of each scheduled job, or nil (Client.write).
      def write(queued, scheduled, scheduled_queues = nil)
        unless @lock.synchronize { @pending.empty? }
          return hold([queued, scheduled, scheduled_queues], nil)
        end
        Store::Queues.push(@config.store, queued, scheduled, scheduled_queues)
      rescue ConnectionError => e
        hold([queued, scheduled, scheduled_queues], e)
      end

      private

      def hold(push, error)
        queued, scheduled, = push
        count = queued.sum { |_, payloads| payloads.size } + (scheduled.size / 2)
        @lock.synchronize do
          if @size + count > @limit
            raise ConnectionError, "Redis is unreachable and #{@size} pushed jobs already wait for it " \
              "(reliable_push_limit #{@limit}); this push was not accepted#{": #{error.message}" if error}"
          end
          if error && !@outage
            @config.logger.warn("Redis is unreachable (#{error.message}); holding pushed jobs until it answers")
            @outage = true
          end
          @pending << [*push, count]
          @size += count
          start_flusher
          @wake.signal
        end
        nil
      end

      def start_flusher
        return if @thread&.alive?
        @thread = Thread.new do
          Thread.current.name = "deckhand-push-buffer"
          Thread.current.report_on_exception = false
          flush_forever
        end
      end

      def flush_forever
        failures = 0
        loop do
          batch = @lock.synchronize do
            @wake.wait(@lock) while @pending.empty?
            @pending.first
          end
          begin
            Store::Queues.push(@config.store, *batch[0, 3])
            written(batch)
            failures = 0
          rescue ConnectionError
            sleep DELAYS[failures] || DELAYS.last
            failures += 1
          end
        end
      end

      def written(batch)
        @lock.synchronize do
          @pending.shift
          @size -= batch[3]
          if @pending.empty? && @outage
            @config.logger.info("Redis answers again: the jobs held meanwhile are written")
            @outage = false
          end
        end
      end

      def flush_at_exit
        deadline = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) + FLUSH_AT_EXIT
        until @lock.synchronize { @pending.empty? }
          return lost_at_exit if ::Process.clock_gettime(::Process::CLOCK_MONOTONIC) > deadline
          batch = @lock.synchronize { @pending.first }
          begin
            Store::Queues.push(@config.store, *batch[0, 3])
            written(batch)
          rescue ConnectionError
            sleep 0.1
          end
        end
      end

      def lost_at_exit
        @config.logger.error("the process exits with #{size} pushed jobs still waiting for Redis: they are lost")
      end
    end
  end
end
