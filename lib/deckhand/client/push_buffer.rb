# frozen_string_literal: true

require_relative "../store/held_push"
require_relative "push_flusher"

module Deckhand
  class Client
    # Reliable push (opt-in, `config.reliable_push = true`): when Redis cannot
    # be reached, pushes wait here, in memory and in order, instead of
    # failing, and a supervised thread (Client::PushFlusher) writes them as
    # soon as Redis answers again (and at exit, for up to `FLUSH_AT_EXIT`
    # seconds). While anything waits, new pushes queue behind it, so jobs
    # reach Redis in the order they were pushed. At most `limit` jobs wait;
    # past that a push raises, nothing is dropped silently.
    #
    # A held push leaves the buffer only once Redis took it, and is never
    # written twice by the buffer: a push Redis refused in part (WRONGTYPE on
    # one queue, OOM) keeps only the refused part at the head of the line,
    # and one that reached the primary but too few replicas (NotReplicated)
    # is done, with a warning. One writer at a time (the flusher, or the exit
    # flush) takes the head of the line.
    #
    # What it cannot save: jobs still waiting when the process dies (SIGKILL,
    # a crash, Redis down through the whole exit flush) are lost, and the
    # process logs how many. A write whose reply was lost may have reached
    # Redis and is written again: such a job runs twice (at least once, as
    # everywhere in Deckhand).
    #
    #   buffer = PushBuffer.for(config)   # the configuration's one buffer
    #   buffer.write(queued, scheduled)   # to Redis, or into the buffer when Redis is away
    class PushBuffer
      FLUSH_AT_EXIT = 5.0

      @buffers = ObjectSpace::WeakMap.new
      @lock = Mutex.new

      # The buffer of a configuration's reliable pushes (a Config, or a
      # Client::RoutedConfig for another Redis), built on its first use, and
      # again in a forked child: a parent's waiting jobs are its own.
      def self.for(config)
        @lock.synchronize do
          buffer = @buffers[config]
          buffer = @buffers[config] = new(config) unless buffer&.pid == ::Process.pid
          buffer
        end
      end

      # The process that built it.
      attr_reader :pid

      def initialize(config)
        @config = config
        @logger = config.logger
        @limit = config.reliable_push_limit
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @writer = Mutex.new # held while the head of the line is written
        @pending = [] # [queued, scheduled, scheduled_queues, size]
        @size = 0
        @outage = false
        @refusal = nil
        @flusher = nil
        @pid = ::Process.pid
        at_exit { flush_at_exit }
      end

      # Jobs waiting for Redis.
      def size = @lock.synchronize { @size }

      # scheduled_queues: the queue of each scheduled job, or nil (Client.write).
      def write(queued, scheduled, scheduled_queues = nil)
        unless @lock.synchronize { @pending.empty? }
          return hold([queued, scheduled, scheduled_queues], nil)
        end
        Store::Queues.push(@config.store, queued, scheduled, scheduled_queues, fair: @config.fair_queues, logger: @config.logger)
      rescue ConnectionError => e
        hold([queued, scheduled, scheduled_queues], e)
      end

      # Waits up to `seconds` for a held push; true when one waits.
      def wait(seconds)
        @lock.synchronize do
          @wake.wait(@lock, seconds) if @pending.empty?
          !@pending.empty?
        end
      end

      # Cuts a #wait short.
      def nudge = @lock.synchronize { @wake.broadcast }

      # Writes the oldest held push: true once Redis took it (or nothing
      # waits), false when Redis refused some of it (kept, to try again).
      # Raises ConnectionError when Redis cannot be reached.
      def flush_one
        @writer.synchronize do
          push = @lock.synchronize { @pending.first } or return true
          outcome = Store::HeldPush.write(@config.store, *push.first(3), fair: @config.fair_queues)
          @logger.warn("#{outcome.not_replicated.message} (a held push; it is not pushed again)") if outcome.not_replicated
          # A refused job's listing was refused too (OOM): only the refusal is news.
          @config.store.listing_warning.refused(outcome.unlisted, @logger) if outcome.unlisted && !outcome.left
          outcome.left ? refused(outcome) : written
          outcome.left.nil?
        end
      end

      private

      def hold(push, error)
        count = count(push)
        @lock.synchronize do
          if @size + count > @limit
            raise ConnectionError, "Redis is unreachable and #{@size} pushed jobs already wait for it " \
              "(reliable_push_limit #{@limit}); this push was not accepted#{": #{error.message}" if error}"
          end
          if error && !@outage
            @logger.warn("Redis is unreachable (#{error.message}); holding pushed jobs until it answers")
            @outage = true
          end
          @pending << [*push, count]
          @size += count
          @flusher ||= PushFlusher.new(self, logger: @logger).start
          @wake.broadcast
        end
        nil
      end

      def count((queued, scheduled)) = queued.sum { |_, payloads| payloads.size } + (scheduled.size / 2)

      def written
        @lock.synchronize do
          @size -= @pending.shift.last
          if @pending.empty? && (@outage || @refusal)
            @logger.info("Redis answers again: the jobs held meanwhile are written")
            @outage = false
            @refusal = nil
          end
        end
      end

      # What Redis took leaves the line; the rest stays at its head. A
      # refusal is logged when it changes, not at every try.
      def refused(outcome)
        left = outcome.left
        @lock.synchronize do
          @size -= @pending.first.last - count(left)
          @pending[0] = [*left, count(left)]
          return if @refusal == outcome.refusal.message
          @refusal = outcome.refusal.message
        end
        jobs = count(left)
        @logger.error("Redis refused a held push of #{jobs} job#{"s" unless jobs == 1}: kept, with the pushes behind it, " \
          "and tried again: #{outcome.refusal.message}")
      end

      # The flusher may be writing the head of the line: #flush_one waits
      # for it, so no push is written twice. A forked child inherits this
      # handler and a copy of the line: the parent writes its jobs, not the child.
      def flush_at_exit
        return unless ::Process.pid == @pid
        deadline = Monotonic.now + FLUSH_AT_EXIT
        @flusher&.stop
        until @lock.synchronize { @pending.empty? }
          return lost_at_exit if Monotonic.now > deadline
          begin
            sleep 0.1 unless flush_one
          rescue ConnectionError
            sleep 0.1
          end
        end
      end

      def lost_at_exit
        @logger.error("the process exits with #{size} pushed jobs still waiting for Redis: they are lost")
      end
    end
  end
end
