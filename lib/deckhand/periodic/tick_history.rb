# frozen_string_literal: true

require_relative "../store/scripts/periodic/periodic_history"

module Deckhand
  module Periodic
    # Writes what became of each tick of a periodic entry into the entry's
    # history (its last Store::Scripts::PeriodicHistory::KEPT ticks): the
    # leader writes that a tick was enqueued or skipped and why; the server
    # that runs the tick's job writes running, then succeeded or failed
    # (Periodic::TickOutcomes). Times are Redis' (store.clock): the leader,
    # the server and the dashboard may be three hosts. A write Redis refuses
    # is logged and dropped: the history is a record for people, and a job
    # never waits or fails for it.
    #
    #   history = TickHistory.new(store, logger)
    #   history.enqueued("nightly", tick, jid, "reports")
    #   history.skipped("nightly", tick, "paused")
    #   started = history.running(job)        # job: the tick's payload Hash ("periodic", "periodic_at")
    #   history.finished(job, started)        # or finished(job, started, error)
    class TickHistory
      def initialize(store, logger)
        @store = store
        @logger = logger
        @script = Store::Scripts::PeriodicHistory.new(store)
      end

      # A tick's job is in its queue (only when the tick has no record yet:
      # its server may have started it already).
      def enqueued(name, tick, jid, queue)
        write(name, {"tick" => tick.to_i, "state" => "enqueued", "jid" => jid, "queue" => queue}, first: true)
      end

      # A tick that made no job, and why ("paused", "missed: ...").
      def skipped(name, tick, reason)
        write(name, {"tick" => tick.to_i, "state" => "skipped", "reason" => reason}, first: true)
      end

      # Returns when it started, for #finished.
      def running(job)
        now = @store.clock.now
        write(job["periodic"], base(job).merge("state" => "running", "started_at" => now), at: now)
        now
      end

      # `error`: the exception the job raised, nil when it returned. `later`:
      # why the job went back to wait without an outcome (the process
      # stopped, a limiter rescheduled it), which is no failure.
      def finished(job, started, error = nil, later: nil)
        record = base(job).merge("started_at" => started)
        record.merge!(if later then {"state" => "enqueued", "reason" => later}
        elsif error then {"state" => "failed", "error" => error.class.name.to_s}
        else {"state" => "succeeded"}
        end)
        write(job["periodic"], record)
      end

      private

      def base(job)
        {"tick" => job["periodic_at"].to_i, "jid" => job["jid"], "queue" => job["queue"], "retry_count" => job["retry_count"]}.compact
      end

      def write(name, record, first: false, at: @store.clock.now)
        @script.call(name: name.to_s, record: record.merge("at" => at), first: first)
      rescue Deckhand::RedisError => e
        @logger.warn("periodic #{name}: the history of tick #{record["tick"]} (#{record["state"]}) was not written: #{e.message}")
        false
      end
    end
  end
end
