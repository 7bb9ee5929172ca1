# frozen_string_literal: true

require_relative "../store/jobs/held_push"
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
    # Every write, the first and the flusher's, is a marked push
    # (Store::MarkedPush), so the buffer never holds what Redis already
    # has: when the reply of a write is lost, Redis is asked whether it ran
    # it, and only what it did not run is held. When Redis does not answer
    # the question (it went away with the reply), the write is held in
    # doubt, with its mark, and asked about again before anything is
    # written again. A held push leaves the buffer only once Redis took it:
    # a push Redis refused in part (WRONGTYPE on one queue) keeps only the
    # refused part at the head of the line, and one that reached the
    # primary but too few replicas (NotReplicated) is done, with a warning.
    # One writer at a time (the flusher, or the exit flush) takes the head
    # of the line. A write in doubt is held even past `limit`: it may be in
    # Redis already, so it cannot be refused.
    #
    # What it cannot save: jobs still waiting when the process dies (SIGKILL,
    # a crash, Redis down through the whole exit flush) are lost, and the
    # process logs how many. A write in doubt for longer than a mark lives
    # (Store::PushMarks::TTL, ten minutes) can no longer be asked about: it
    # is written again, with a warning, and its jobs may run twice (at least
    # once, as everywhere in Deckhand).
    #
    #   buffer = PushBuffer.for(config)   # the configuration's one buffer
    #   buffer.write(queued, scheduled)   # => the outcome of what it did not accept (Store::Jobs::HeldPush::Outcome)
    class PushBuffer # :nodoc:
      FLUSH_AT_EXIT = 5.0

      # One push waiting for Redis: what it writes, its count of jobs, and
      # when its write's reply was lost unanswered, its Store::PushMarks::Doubt.
      Held = Struct.new(:push, :count, :doubt)
      private_constant :Held

      NONE = [].freeze
      private_constant :NONE

      # Weak on both sides, and safe so: a buffer's at_exit flush holds it
      # for the life of the process, so the map never loses one it gave out.
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
        @pending = [] # Held, oldest first
        @size = 0
        @outage = false
        @refusal = nil
        @flusher = nil
        @pid = ::Process.pid
        at_exit { flush_at_exit }
      end

      # Jobs waiting for Redis.
      def size = @lock.synchronize { @size }

      # Writes the push, or holds it when Redis is away or other pushes
      # wait. Returns the outcome of what it did not accept: `left` and
      # `refusal` when Redis refused jobs (a key of the wrong type) or the
      # limit was reached, `not_replicated` when the write came short of
      # replicas. scheduled_queues: the queue of each scheduled job, or nil.
      def write(queued, scheduled, scheduled_queues = nil)
        push = [queued, scheduled, scheduled_queues]
        unless @lock.synchronize { @pending.empty? }
          refusal = hold([Held.new(push, count(push), nil)], nil)
          return Store::Jobs::HeldPush::Outcome.new(refusal && push, refusal, nil, nil, NONE)
        end
        outcome = Store::Jobs::Queues.push_marked(@config.store, *push, fair: @config.fair_queues, logger: @logger, patience: 0)
        keep(outcome)
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
      # waits), false when some of it is still to write (Redis refused it,
      # or did not answer): kept at the head, to try again. A push held in
      # doubt is asked about first; Redis answering that it ran it is
      # enough. Raises ConnectionError when Redis cannot be reached.
      def flush_one
        @writer.synchronize do
          head = @lock.synchronize { @pending.first } or return true
          head = settle(head) if head.doubt
          return head == :written unless head.is_a?(Held)
          outcome = Store::MarkedPush.write(@config.store, *head.push, fair: @config.fair_queues, patience: 0)
          @logger.warn("#{outcome.not_replicated.message} (a held push; it is not pushed again)") if outcome.not_replicated
          # A refused job's listing was refused too (OOM): only the refusal is news.
          @config.store.listing_warning.refused(outcome.unlisted, @logger) if outcome.unlisted && !outcome.left
          rest = outcome.doubt.map { |doubt| held(doubt.push, doubt) }
          rest << held(outcome.left) if outcome.left
          rest.empty? ? written : replace(rest, outcome.left && outcome.refusal)
          rest.empty?
        end
      end

      private

      def held(push, doubt = nil) = Held.new(push, count(push), doubt)

      # The first write's outcome: what Redis did not run because it could
      # not be reached (or did not say whether it ran) is held; what it
      # refused is given back, with what did not fit under the limit.
      def keep(outcome)
        error = outcome.refusal
        entries = outcome.doubt.map { |doubt| held(doubt.push, doubt) }
        waits = outcome.left && error.is_a?(ConnectionError)
        entries << held(outcome.left) if waits
        refusal = entries.empty? ? nil : hold(entries, error)
        left, error = waits ? [refusal && outcome.left, refusal] : [outcome.left, outcome.left && error]
        Store::Jobs::HeldPush::Outcome.new(left, error, outcome.not_replicated, nil, NONE)
      end

      # Holds the entries, in order; returns the error of a push refused at
      # the limit (a push in doubt is always held: Redis may have it), else nil.
      def hold(entries, error)
        @lock.synchronize do
          fresh = entries.reject(&:doubt).sum(&:count)
          if fresh.positive? && @size + fresh > @limit
            entries = entries.select(&:doubt)
            refusal = ConnectionError.new("Redis is unreachable and #{@size} pushed jobs already wait for it " \
              "(reliable_push_limit #{@limit}); this push was not accepted#{": #{error.message}" if error}")
          end
          unless entries.empty?
            if error && !@outage
              @logger.warn("Redis is unreachable (#{error.message}); holding pushed jobs until it answers")
              @outage = true
            end
            @pending.concat(entries)
            @size += entries.sum(&:count)
            @flusher ||= PushFlusher.new(self, logger: @logger).start
            @wake.broadcast
          end
          refusal
        end
      end

      # A held push in doubt: Redis is asked whether it ran the write whose
      # reply was lost. Returns :written (it did), the Held of what it did
      # not run (now the head of the line), or nil while it does not answer.
      def settle(head)
        doubt = head.doubt
        if doubt.expired?
          @logger.warn("a held push of #{head.count} jobs lost its reply and Redis did not say within " \
            "#{Store::PushMarks::TTL} s whether it ran it: written again; its jobs may run twice")
          return replace([held(head.push)], nil).first
        end
        refused = Store::PushMarks.recheck(@config.store, doubt) or return nil
        parts = refused.keys.compact # nil: the set of queue names, not a job
        return written && :written if parts.empty?
        replace([held(doubt.push(parts))], nil).first
      end

      def count((queued, scheduled)) = queued.sum { |_, payloads| payloads.size } + (scheduled.size / 2)

      def written
        @lock.synchronize do
          @size -= @pending.shift.count
          if @pending.empty? && (@outage || @refusal)
            @logger.info("Redis answers again: the jobs held meanwhile are written")
            @outage = false
            @refusal = nil
          end
        end
      end

      # What Redis took leaves the line; the rest (`entries`) takes the
      # head's place. A refusal is logged when it changes, not at every try.
      def replace(entries, refusal)
        @lock.synchronize do
          @size += entries.sum(&:count) - @pending.first.count
          @pending[0, 1] = entries
          return entries if refusal.nil? || refusal.is_a?(ConnectionError) || @refusal == refusal.message
          @refusal = refusal.message
        end
        jobs = entries.sum(&:count)
        @logger.error("Redis refused a held push of #{jobs} job#{"s" unless jobs == 1}: kept, with the pushes behind it, " \
          "and tried again: #{refusal.message}")
        entries
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
