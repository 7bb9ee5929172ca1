# frozen_string_literal: true

require_relative "../../script"
require_relative "../../layout/plain_workflows"

module Deckhand
  class Store
    module Scripts
      # The contract every workflow script (workflow/*.lua) shares,
      # lib/workflow.lua: KEYS declare the workflow's keys
      # (Layout::PlainWorkflows.all), the queues set, the two indexes, the
      # fleet's counters, then
      # one key per queue the call may push to; ARGV starts with now (epoch
      # ms), now as payloads write it (a released job's enqueued_at), the
      # mode ('' plain, 'outbox' cluster), the number of queues and their
      # names, then the operation's own arguments. In cluster mode
      # (Layout::ClusterWorkflows) the outbox stands where the queues set
      # is, its jobs hash where the first queue is, and the queues are
      # names only: every key is in the {workflows} slot. Each subclass
      # names its script, which documents those arguments and its reply;
      # WorkflowOps runs them.
      #
      #   step = WorkflowStep.new(store, now_ms: 1_764_000_000_000, stamp: 1_764_000_000_000)
      #   step.call("Wf7x", ["default"], ["s", jid, "42"])   # => "ok"
      class WorkflowScript < Script # :nodoc:
        # The Lua each workflow script needs, in the order each builds on the
        # last: every one reads the workflow (CORE), those that write steps
        # flush a plan (PLAN), and an end travels down the graph (GRAPH).
        CORE = %w[guard workflow].freeze
        PLAN = [*CORE, "workflow_end", "workflow_push", "workflow_flush"].freeze
        GRAPH = [*CORE, "workflow_finish", "workflow_end", "workflow_push", "workflow_flush"].freeze
        # Those that leave a step open cannot end the workflow (workflow_running
        # stands in for workflow_end): a push, a running step's add, a
        # retried step's end undone (workflow_reopen.lua). Only the two that
        # add steps append to a step's edges (workflow_append).
        PUSH = [*CORE, "workflow_append", "workflow_running", "workflow_push", "workflow_flush"].freeze
        EXTEND = [*CORE, "workflow_append", "workflow_finish", "workflow_running", "workflow_push", "workflow_flush"].freeze
        REOPEN = [*CORE, "workflow_reopen", "workflow_running", "workflow_push", "workflow_flush"].freeze

        # What a script that releases steps does with their jobs: pushes them
        # to their queues (plain mode), or writes them to the outbox (cluster
        # mode). Each such script has a twin, its InCluster class, sent the
        # outbox's part in place of the queues' (WorkflowScript.for picks).
        TO_QUEUES = "workflow_push"
        TO_OUTBOX = "workflow_outbox_write"

        def self.lua(name, uses: nil)
          super
          return unless script_uses.include?(TO_QUEUES)
          twin = Class.new(self)
          twin.lua(name, uses: script_uses.map { |lib| (lib == TO_QUEUES) ? TO_OUTBOX : lib })
          const_set(:InCluster, twin)
        end

        # The class of this script for a layout's workflow names.
        def self.for(names) = (names.outbox? && const_defined?(:InCluster, false)) ? self::InCluster : self

        def initialize(store, now_ms:, stamp:)
          super(store)
          @now_ms = now_ms
          @stamp = stamp
        end

        # Runs the script for workflow `wid` with the `queues` it may push to
        # and the operation's `args`; returns its reply.
        def call(wid, queues, args)
          layout = keys
          names = layout.workflows
          targets = queues.map { |queue| layout.queue(queue) } # refuses, in cluster mode, a name that cannot be a hash tag
          if names.outbox?
            raise Deckhand::Error, "#{self.class} pushes to queues: in cluster mode run #{self.class}.for(names)" if self.class.script_uses.include?(TO_QUEUES)
            declared = [*names.all(wid), names::OUTBOX, names::INDEX, names::EXPIRIES, names::COUNTS, names::OUTBOX_JOBS]
            return run(declared, [@now_ms, @stamp, "outbox", queues.size, *queues, *args])
          end
          declared = [*names.all(wid), layout::QUEUES, names::INDEX, names::EXPIRIES, names::COUNTS, *targets]
          run(declared, [@now_ms, @stamp, "", queues.size, *queues, *args])
        end
      end
    end
  end
end
