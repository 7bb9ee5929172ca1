# frozen_string_literal: true

require "securerandom"
require_relative "jobs"

module Torture
  module Faults
    # A steady stream of pushes of every kind the drill checks (jobs that
    # succeed, fail and retry, die, are scheduled, hold a unique lock, belong
    # to a batch), from a thread, through Deckhand.config's client, each with
    # a jid chosen here so that even a push that raised can be looked for
    # afterwards.
    #
    #   stream = Stream.new(pause: 0.005).start
    #   stream.stop
    #   stream.acked        # => {jid => kind} of the pushes that returned
    #   stream.failed       # => jids of the pushes that raised or were refused
    class Stream
      # Kinds in the order the stream cycles through them (weights by repetition).
      CYCLE = %w[ok flaky ok scheduled ok dies ok unique ok flaky ok doomed ok batch ok flaky].freeze
      BATCH_SIZE = 3

      attr_reader :batches

      def initialize(pause:)
        @pause = pause
        @acked = {}
        @failed = []
        @batches = []
        @lock = Mutex.new
        @running = true
      end

      def start
        @thread = Thread.new do
          count = 0
          while @running
            push(CYCLE[count % CYCLE.size], count)
            count += 1
            sleep @pause
          end
        end
        self
      end

      def stop
        @running = false
        @thread&.join
        self
      end

      # Pushes `count` jobs of `ms` milliseconds at once, from the caller's
      # thread (a backlog for the fetchers to work through).
      def burst(count, ms)
        count.times do
          jid = SecureRandom.hex(12)
          record([jid], "slow", enqueue(SlowJob, jid, ms))
        rescue Deckhand::Error, RedisClient::Error
          record([jid], "slow", nil)
        end
      end

      def acked = @lock.synchronize { @acked.dup }

      def failed = @lock.synchronize { @failed.dup }

      private

      def push(kind, n)
        jids = (kind == "batch") ? Array.new(BATCH_SIZE) { SecureRandom.hex(12) } : [SecureRandom.hex(12)]
        pushed = case kind
        when "batch" then push_batch(jids, n)
        # Scheduled a moment ahead: the schedule set and schedule.lua at work.
        when "scheduled" then enqueue(OkJob, jids[0], n, later: true)
        # Every other one scheduled, so that a lock lives longer than a job runs.
        when "unique" then enqueue(UniqueJob, jids[0], n, later: n.odd?)
        else enqueue(CLASSES.fetch(kind), jids[0], n)
        end
        record(jids, kind, pushed)
      rescue Deckhand::Error, RedisClient::Error
        record(jids, kind, nil)
        sleep 0.01
      end

      LATER = 0.5
      CLASSES = {"ok" => OkJob, "flaky" => FlakyJob, "doomed" => DoomedJob, "dies" => DiesJob}.freeze
      private_constant :CLASSES, :LATER

      # One of its jobs scheduled, so that the batch stays open a while.
      def push_batch(jids, n)
        batch = Deckhand::Batch.new
        batch.description = "fault drill #{n}"
        batch.jobs do
          enqueue(OkJob, jids[0], n, later: true)
          jids.drop(1).each { |jid| enqueue(OkJob, jid, n) }
        end
        @lock.synchronize { @batches << batch.bid }
        jids
      end

      # As perform_async (or perform_in) would push it, with the jid given.
      def enqueue(klass, jid, n, later: false)
        item = klass.deckhand_options.merge("class" => klass.name, "args" => [n], "jid" => jid)
        item["at"] = Time.now.to_f + LATER if later
        Deckhand::Client.new.push(item)
      end

      def record(jids, kind, pushed)
        @lock.synchronize do
          if pushed
            jids.each { |jid| @acked[jid] = kind }
          else
            @failed.concat(jids)
          end
        end
      end
    end
  end
end
