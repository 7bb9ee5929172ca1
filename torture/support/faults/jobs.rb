# frozen_string_literal: true

require "deckhand"
require "deckhand/batch"
require "redis_client"
require_relative "setup"
require_relative "../driver_redis"

module Torture
  module Faults
    # The books the fault drill's jobs keep, in the ledger: a Redis outside the
    # system under test (TORTURE_LEDGER_URL), which the faults never touch.
    # A job that succeeds counts itself in faults:succeeded (jid => runs that
    # reached the end); a job that fails on purpose counts its attempts.
    module Books
      SUCCEEDED = "faults:succeeded"
      ATTEMPTS = "faults:attempts"

      module_function

      # One connection per processor thread, as long as the thread lives.
      def ledger = Thread.current[:deckhand_faults_ledger] ||= Torture.redis(ENV.fetch("TORTURE_LEDGER_URL"))

      FINISHED_AT = "faults:finished_at"
      FIRST_FINISHED_AT = "faults:first_finished_at"

      def succeeded(jid)
        at = Time.now.to_f
        ledger.pipelined do |pipe|
          pipe.call("HINCRBY", SUCCEEDED, jid, 1)
          pipe.call("HSET", FINISHED_AT, jid, at)
          pipe.call("HSETNX", FIRST_FINISHED_AT, jid, at)
        end
      end

      def attempt(jid) = ledger.call("HINCRBY", ATTEMPTS, jid, 1)

      COUNTS = "faults:counts"
      TICKS = "faults:ticks"

      # Tallies what the figures report (`over_limit`, `ticks_doubled`).
      def count(name, by = 1) = ledger.call("HINCRBY", COUNTS, name, by)

      # A periodic tick's job: a job of a tick that already had another
      # (a tick enqueued twice, not a job run twice) is counted.
      def tick(at, jid)
        return if ledger.call("HSETNX", TICKS, at.to_s, jid) == 1
        count("ticks_doubled") unless ledger.call("HGET", TICKS, at.to_s) == jid
      end
    end

    # Succeeds (most of the stream; also the scheduled and batch jobs).
    class OkJob
      include Deckhand::Job

      def perform(_n) = Books.succeeded(jid)
    end

    # Works `ms` milliseconds, then succeeds: a backlog that keeps the
    # fetchers busy while Redis refuses writes.
    class SlowJob
      include Deckhand::Job

      def perform(ms)
        sleep ms / 1000.0
        Books.succeeded(jid)
      end
    end

    # Fails its first attempt, retried at once (the scheduler brings it back),
    # then succeeds: the retry set and schedule.lua under fire.
    class FlakyJob
      include Deckhand::Job

      deckhand_options retry: 3
      deckhand_retry_in { 0 }

      def perform(_n)
        raise "the first attempt fails" if Books.attempt(jid) == 1
        Books.succeeded(jid)
      end
    end

    # Fails twice: retried once, then dead.
    class DoomedJob
      include Deckhand::Job

      deckhand_options retry: 1
      deckhand_retry_in { 0 }

      def perform(_n)
        Books.attempt(jid)
        raise "always fails"
      end
    end

    # Fails once, straight to the dead set (retry: 0).
    class DiesJob
      include Deckhand::Job

      deckhand_options retry: 0

      def perform(_n)
        Books.attempt(jid)
        raise "dies"
      end
    end

    # Holds a unique lock from its push to its success.
    class UniqueJob
      include Deckhand::Job

      deckhand_options unique_for: 120

      def perform(_n) = Books.succeeded(jid)
    end

    # Its class is paused through most of the drill (Drill#run): a server
    # holds each fetched one in the default queue's held set for the class
    # (settle.lua) until a resume moves it back.
    class PausedJob
      include Deckhand::Job

      def perform(_n) = Books.succeeded(jid)
    end

    # What each kind of job must end as once the stream drains.
    ENDS = {"ok" => :succeeded, "slow" => :succeeded, "flaky" => :succeeded, "scheduled" => :succeeded, "unique" => :succeeded,
            "batch" => :succeeded, "throttled" => :succeeded, "fair" => :succeeded, "limited" => :succeeded,
            "periodic" => :succeeded, "debounce" => :succeeded, "paused" => :succeeded, "urgent" => :succeeded, "later" => :succeeded, "doomed" => :dead, "dies" => :dead}.freeze
  end
end
