# frozen_string_literal: true

require "securerandom"
require_relative "feature_jobs"

module Torture
  module Faults
    # A steady stream of pushes of every kind the drill checks (jobs that
    # succeed, fail and retry, die, are scheduled, hold a unique lock, belong
    # to a batch, wait for a throttled queue, a fair queue's turn or a
    # limiter: Setup; debounced pairs, the second replacing the first; jobs
    # of a paused class; wait at a priority level of the default queue or
    # the throttled one: docs/priority.md), from a thread, through Deckhand.config's client, each
    # with a jid chosen here so that even a push that raised can be looked
    # for afterwards.
    #
    #   stream = Stream.new(pause: 0.005).start
    #   stream.stop
    #   stream.acked        # => {jid => kind} of the pushes that returned
    #   stream.failed       # => jids of the pushes that raised or were refused
    #   stream.replaced     # => jids a later debounced push of their key replaced: nowhere, or run once
    #   stream.why(jid)     # => "unique: Deckhand::RedisError: ..." (its kind, and the error if it raised)
    class Stream
      # Kinds in the order the stream cycles through them (weights by repetition).
      CYCLE = %w[ok flaky limited scheduled ok dies throttled unique ok urgent flaky fair doomed ok batch ok later flaky debounce paused].freeze
      # A debounced job waits this long after the last push of its key.
      DEBOUNCE_WAIT = 0.3
      BATCH_SIZE = 3
      # Kinds pushed three at a time, one push each: more than the throttle
      # and the limiter let run at once, one job per tenant of the fair queue.
      GROUPS = %w[throttled fair limited].freeze

      attr_reader :batches

      def initialize(pause:)
        @pause = pause
        @acked = {}
        @failed = {}
        @replaced = []
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
        rescue Deckhand::Error, RedisClient::Error => e
          record([jid], "slow", nil, e)
        end
      end

      def acked = @lock.synchronize { @acked.dup }

      def failed = @lock.synchronize { @failed.keys }

      def replaced = @lock.synchronize { @replaced.dup }

      def why(jid) = @lock.synchronize { @failed[jid] || @acked[jid] }

      private

      def push(kind, n)
        return push_debounced(n) if kind == "debounce"
        return Setup::TENANTS.each_index { |i| push_one(kind, n, i) } if GROUPS.include?(kind)
        push_one(kind, n, 0)
      end

      def push_one(kind, n, i)
        jids = (kind == "batch") ? Array.new(BATCH_SIZE) { SecureRandom.hex(12) } : [SecureRandom.hex(12)]
        pushed = case kind
        when "batch" then push_batch(jids, n)
        # Scheduled a moment ahead: the schedule set and schedule.lua at work
        # (every other one at a priority level, where it goes when due).
        when "scheduled" then enqueue(OkJob, jids[0], n, later: true, options: n.odd? ? {"priority" => Setup::LEVELS["urgent"]} : {})
        # Every other one scheduled, so that a lock lives longer than a job runs.
        when "unique" then enqueue(UniqueJob, jids[0], n, later: n.odd?)
        # One of each three at a priority level: the throttle counts its levels' jobs too.
        when "throttled" then enqueue(SlowJob, jids[0], 10, options: {"queue" => Setup::THROTTLED}.merge(i.zero? ? {"priority" => -1} : {}))
        # "later" fails once: its retry goes back to its level when due.
        when "urgent" then enqueue(OkJob, jids[0], n, options: {"priority" => Setup::LEVELS.fetch(kind)})
        when "later" then enqueue(FlakyJob, jids[0], n, options: {"priority" => Setup::LEVELS.fetch(kind)})
        when "fair" then enqueue(OkJob, jids[0], n, options: {"queue" => Setup::FAIR, "tenant" => Setup::TENANTS[i]})
        else enqueue(CLASSES.fetch(kind), jids[0], n)
        end
        record(jids, kind, pushed)
      rescue Deckhand::Error, RedisClient::Error => e
        record(jids, kind, nil, e)
        sleep 0.01
      end

      LATER = 0.5
      CLASSES = {"ok" => OkJob, "flaky" => FlakyJob, "doomed" => DoomedJob, "dies" => DiesJob, "limited" => LimitedJob,
                 "paused" => PausedJob}.freeze
      private_constant :CLASSES, :LATER

      # Two pushes of one key (collapse_push.lua): the first is replaced, or
      # ran before the second came; the second is acked as any job. A first
      # push that raised wrote nothing, as any push.
      def push_debounced(n)
        options = {"debounce" => {"key" => "drill-#{n}", "wait" => DEBOUNCE_WAIT}}
        first, second = SecureRandom.hex(12), SecureRandom.hex(12)
        begin
          enqueue(OkJob, first, n, options: options)
          @lock.synchronize { @replaced << first }
        rescue Deckhand::Error, RedisClient::Error => e
          record([first], "debounce", nil, e)
        end
        push_one_debounced(second, n, options)
      end

      def push_one_debounced(jid, n, options)
        record([jid], "debounce", enqueue(OkJob, jid, n, options: options))
      rescue Deckhand::Error, RedisClient::Error => e
        record([jid], "debounce", nil, e)
        sleep 0.01
      end

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

      # As perform_async (or perform_in) would push it, with the jid given
      # (and `options` over the class's, as `set` gives them).
      def enqueue(klass, jid, n, options: {}, later: false)
        item = klass.deckhand_options.merge(options, "class" => klass.name, "args" => [n], "jid" => jid)
        item["at"] = Time.now.to_f + LATER if later
        Deckhand::Client.new.push(item)
      end

      def record(jids, kind, pushed, error = nil)
        @lock.synchronize do
          if pushed
            jids.each { |jid| @acked[jid] = kind }
          else
            jids.each { |jid| @failed[jid] = "#{kind}: #{error&.class}: #{error&.message.to_s[0, 160]}" }
          end
        end
      end
    end
  end
end
