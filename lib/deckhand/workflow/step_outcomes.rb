# frozen_string_literal: true

require "json"
require_relative "../server/outage"

module Deckhand
  class Workflow
    # Records, from the server running a step's job, what became of it: one
    # atomic call each (workflow_attempt.lua as it starts or stops unended,
    # workflow_step.lua as it ends), told twice (a job run again
    # after a crash) changing nothing. What decides the steps after it (its
    # success, its death, its drop) is written before the job is
    # acknowledged or its failure settled, and waits out Redis failures as
    # the retry handler does: the job stays in flight meanwhile, and a
    # shutdown hands it back.
    #
    #   outcomes = StepOutcomes.new(config)
    # A run's news before its end carries the run's token (StepMiddleware
    # makes one per run): a retry's or put-back's news told late, once
    # another server started the step again, changes nothing.
    #
    #   outcomes.starting(wid, jid, run)      # => "run", or "done"/"cancelled": do not run it
    #   outcomes.succeeded(wid, jid, "42")    # its return value, as JSON
    #   outcomes.failed(job, error, :dead)    # a final-failure handler (Config#on_final_failure)
    class StepOutcomes
      # The interrupts that wait while a shutdown's news is told.
      HELD = {Deckhand::Shutdown => :never, Deckhand::Cancelled => :never}.freeze

      def initialize(config)
        @config = config
      end

      def starting(wid, jid, run) = persist("recording a workflow step's start") { Workflow.ops(@config).step(wid, "r", jid, run) }

      # The job raised and may be retried: for the step's state only, so a
      # Redis failure here is logged and the failure goes on.
      def failing(wid, jid, run) = mark(wid, "y", jid, run, "failing")

      # Over a limiter's limit, it goes back to the schedule unrun
      # (Server::Run::OverLimitHandler): released again, so a cancel of its
      # workflow meanwhile cancels it. For the step's state only, as #failing.
      def rescheduled(wid, jid, run) = mark(wid, "q", jid, run, "rescheduled")

      # A shutdown interrupted it and hands its job back to its queue
      # (Server::Launcher#stop): released again, as #rescheduled, so a
      # cancel of its workflow before it runs again cancels it. One try
      # with the interrupts held (a second one would cut the call short),
      # never a wait: a shutdown does not wait out Redis, and a step whose
      # news is lost stays running, its job run again as before.
      def handed_back(wid, jid, run) = Thread.handle_interrupt(HELD) { mark(wid, "q", jid, run, "handed back at a shutdown", "; it stays running") }

      # An iterable job stopped between two steps goes back to resume from
      # its cursor (a server stopping, its time budget): released again, as
      # #handed_back, and told the same way.
      def interrupted(wid, jid, run) = Thread.handle_interrupt(HELD) { mark(wid, "q", jid, run, "interrupted to resume", "; it stays running") }

      def succeeded(wid, jid, value_json)
        persist("recording a workflow step's success") { Workflow.ops(@config).step(wid, "s", jid, value_json) }
      end

      # outcome: :dead or :dropped (Server::Run::RetryHandler, before it writes it).
      def failed(job, error, outcome)
        wid = job["wf"] or return
        news = (outcome == :dead) ? "d" : "x"
        persist("recording a workflow step's failure") { Workflow.ops(@config).step(wid, news, job["jid"], info(job, error)) }
      end

      # Its expires_in passed before it started: it failed, unrun.
      def expired(job) = failed(job, Deckhand::Error.new("expired before it started (expires_in)"), :dropped)

      # Client.cancel took its job out of `where` ("queue", ..., "running"):
      # the step is cancelled, and so are the steps waiting for its success.
      def cancelled(job, where)
        wid = job["wf"] or return
        error = Deckhand::Cancelled.new("cancelled by hand (Client.cancel) while #{(where == "running") ? "running" : "in #{where}"}")
        persist("recording a workflow step's cancel") { Workflow.ops(@config).step(wid, "c", job["jid"], info(job, error)) }
      end

      # The error as a reader of the workflow sees it.
      def info(job, error)
        JSON.generate({"class" => job["class"], "error_class" => error.class.name,
                       "error_message" => error.message.to_s.scrub[0, JobResult::MAX_MESSAGE],
                       "failed_at" => @config.store.clock.now_ms, "retry_count" => job["retry_count"]})
      end

      # News for the step's state alone, told once: a Redis failure is
      # logged (`what` it was to be marked, and `after` that) and goes no
      # further. News of a run other than the one last started ("stale_run")
      # is dropped by the script: it is no failure.
      private def mark(wid, news, jid, run, what, after = "")
        Workflow.ops(@config).step(wid, news, jid, run)
      rescue Deckhand::RedisError => e
        @config.logger.warn("could not mark workflow #{wid}'s step #{jid} as #{what} (#{e.message})#{after}")
      end

      # Waits out Redis failures as Server::Outage says. A shutdown
      # interrupts the wait; the job is handed back and told again.
      def persist(what, &) = Server::Outage.wait_out(@config.logger, what, &)
    end
  end
end
