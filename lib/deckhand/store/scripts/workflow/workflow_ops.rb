# frozen_string_literal: true

require "json"
require_relative "workflow_create"
require_relative "workflow_add"
require_relative "workflow_attempt"
require_relative "workflow_step"
require_relative "workflow_cancel"
require_relative "workflow_reopen"
require_relative "workflow_extend"
require_relative "../../features/workflow_outbox"

module Deckhand
  class Store
    module Scripts
      # Runs the workflow scripts, the one place a workflow changes: each
      # method is one atomic call. Each call declares the queues the workflow
      # may push to, which a process reads once per workflow and keeps
      # (QUEUES); a workflow whose queues changed since (its push brought a
      # new one) answers "stale", changing nothing, and the call reads them
      # again.
      #
      # In cluster mode (Layout::ClusterWorkflows) a call that releases steps
      # leaves their jobs in the outbox of the {workflows} slot; each call is
      # followed by a pass of Features::WorkflowOutbox that pushes what the
      # outbox holds to its queues, each jid once, before the method returns.
      #
      #   ops = WorkflowOps.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   ops.create("Wf7x", description: "import", ttl_ms: 604_800_000, done_ttl_ms: 86_400_000)  # => "ok"
      #   ops.add("Wf7x", steps, queues: ["default"], start: true)   # => "ok"
      #   ops.step("Wf7x", "r", jid, "k3f9a1c2")                    # => "run" (the run's token)
      #   ops.step("Wf7x", "s", jid, "42")                          # => "ok"
      #   ops.add_from("Wf7x", adder_jid, steps, queues: ["default"]) # => 3 (steps added)
      #   ops.cancel("Wf7x")                                        # => 9
      class WorkflowOps # :nodoc:
        # How many workflows' queues a process keeps (then it starts over).
        REMEMBERED = 10_000
        QUEUES = {}
        LOCK = Mutex.new

        # Reads of the queues before giving up: more than one only when
        # another process's push changed them between the read and the call.
        ATTEMPTS = 3

        def initialize(store, now_ms:, stamp:)
          @store = store
          @now_ms = now_ms
          @stamp = stamp
        end

        def create(wid, description:, ttl_ms:, done_ttl_ms:)
          self.class.remember(wid, [])
          script(WorkflowCreate).call(wid, [], [wid, description.to_s, ttl_ms, done_ttl_ms])
        end

        # steps: 6 strings per step (workflow_add.lua); queues: theirs.
        def add(wid, steps, queues:, start:) = run(WorkflowAdd, wid, [start ? "s" : "", steps.size / 6, *steps], queues)

        # Steps a running step adds (workflow_extend.lua): 7 strings per
        # step. Replies how many it added, "cancelled" or "not_running".
        def add_from(wid, adder, steps, queues:) = run(WorkflowExtend, wid, [adder, steps.size / 7, *steps], queues)

        # A step's news: "r", "y" or "q" (workflow_attempt.lua), or its end,
        # "s", "x", "d" or "c" (workflow_step.lua). `data`: for the first,
        # the token of the run telling it (a "y" or "q" of a run other than
        # the one last started answers "stale_run", changing nothing); for
        # an end, its value or error. A step that died or was dropped and
        # starts again ("retried") has its end undone (workflow_reopen.lua):
        # "run" or "cancelled". Told twice (a crash between the calls), the
        # second call does it.
        def step(wid, news, jid, data = "")
          reply = run(ATTEMPT_NEWS.include?(news) ? WorkflowAttempt : WorkflowStep, wid, [news, jid, data])
          (reply == "retried") ? run(WorkflowReopen, wid, [jid]) : reply
        end

        # The news that starts or stops a step's run without ending it.
        ATTEMPT_NEWS = %w[r y q].freeze

        # Cancels the workflow by hand (workflow_cancel.lua): how many steps
        # it cancelled, :ended when it had ended, or :not_found.
        def cancel(wid)
          why = JSON.generate({"error_class" => "Deckhand::Cancelled", "error_message" => "its workflow was cancelled by hand",
                               "failed_at" => @now_ms})
          case (reply = run(WorkflowCancel, wid, [why]))
          when Integer then reply
          when "ended" then :ended
          else :not_found
          end
        end

        # The scripts with their clock set to now: the fleet's (Redis')
        # time, and a released job's enqueued_at as `config` writes it.
        def self.now(config)
          clock = config.store.clock
          new(config.store, now_ms: clock.now_ms, stamp: Payload.now(config.timestamps, clock: clock))
        end

        # The queues workflow `wid` may push to, as this process knows them.
        def self.known(wid) = LOCK.synchronize { QUEUES[wid] }

        def self.remember(wid, queues)
          LOCK.synchronize do
            QUEUES.clear if QUEUES.size >= REMEMBERED
            QUEUES[wid] = queues
          end
        end

        private

        def script(klass) = klass.for(@store.layout.workflows).new(@store, now_ms: @now_ms, stamp: @stamp)

        def run(klass, wid, args, more = [])
          queues = (self.class.known(wid) || read_queues(wid)) | more
          ATTEMPTS.times do
            reply = script(klass).call(wid, queues, args)
            deliver
            return reply unless reply == "stale"
            queues = read_queues(wid) | more
          end
          raise Deckhand::Error, "workflow #{wid}: its queues in Redis changed under #{ATTEMPTS} calls in a row; " \
            "something other than Deckhand writes to #{@store.layout.workflows.meta(wid)}"
        end

        # Cluster mode: the released steps' jobs to their queues (a stale
        # reply released nothing: the outbox may still hold others' jobs).
        def deliver
          Features::WorkflowOutbox.new(@store, now_ms: @now_ms).deliver if @store.layout.workflows.outbox?
        end

        def read_queues(wid)
          queues = @store.call("HGET", @store.layout.workflows.meta(wid), "queues").to_s.split
          self.class.remember(wid, queues)
          queues
        end
      end
    end
  end
end
