# frozen_string_literal: true

require_relative "workflow_create"
require_relative "workflow_add"
require_relative "workflow_step"

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
      #   ops = WorkflowOps.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   ops.create("Wf7x", description: "import", ttl_ms: 604_800_000, done_ttl_ms: 86_400_000)  # => "ok"
      #   ops.add("Wf7x", steps, queues: ["default"], start: true)   # => "ok"
      #   ops.step("Wf7x", "s", jid, "42")                          # => "ok"
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

        # A step's news (workflow_step.lua): "r", "y", "s", "x" or "d".
        def step(wid, news, jid, data = "") = run(WorkflowStep, wid, [news, jid, data])

        # The queues workflow `wid` may push to, as this process knows them.
        def self.known(wid) = LOCK.synchronize { QUEUES[wid] }

        def self.remember(wid, queues)
          LOCK.synchronize do
            QUEUES.clear if QUEUES.size >= REMEMBERED
            QUEUES[wid] = queues
          end
        end

        private

        def script(klass) = klass.new(@store, now_ms: @now_ms, stamp: @stamp)

        def run(klass, wid, args, more = [])
          queues = (self.class.known(wid) || read_queues(wid)) | more
          ATTEMPTS.times do
            reply = script(klass).call(wid, queues, args)
            return reply unless reply == "stale"
            queues = read_queues(wid) | more
          end
          raise Deckhand::Error, "workflow #{wid}: its queues in Redis changed under #{ATTEMPTS} calls in a row; " \
            "something other than Deckhand writes to #{@store.layout.workflows.meta(wid)}"
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
