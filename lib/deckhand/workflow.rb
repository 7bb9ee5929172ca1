# frozen_string_literal: true

require "json"
require "securerandom"
require_relative "../deckhand"
require_relative "job_result"
require_relative "store/scripts/workflow/workflow_ops"
require_relative "store/features/workflow_records"
require_relative "workflow/keywords"
require_relative "workflow/graph"
require_relative "workflow/step_writer"
require_relative "workflow/step_outcomes"
require_relative "workflow/step_middleware"
require_relative "workflow/extension"

module Deckhand
  # Jobs that run in an order: each step is an ordinary job that waits for
  # the steps it names (`after:`) to end as it asks (`on:`), and the whole
  # graph is pushed as one unit.
  #
  #   flow = Deckhand::Workflow.new("import 7")
  #   fetch = flow.add(FetchFileJob, 7)
  #   parts = flow.add_many(ParsePartJob, (0...8).map { |i| [7, i] }, after: fetch)
  #   merge = flow.add(MergeJob, 7, after: parts)
  #   flow.add(NotifyJob, 7, after: merge, on: :success)
  #   flow.add(CleanupJob, 7, after: merge, on: :complete)   # runs whatever happened
  #   flow.push                                             # nothing runs until every step is written
  #   flow.wait(timeout: 60)                                # => {"state" => "succeeded", ...}
  #
  # A step runs once every step it waits for ended as its `on:` asks
  # (:success, the default; :complete, any end; :failure, its job died or
  # was dropped); a step whose condition can no longer hold is cancelled,
  # and so are the steps waiting for it that can no longer run. Inside a
  # step, `Deckhand::Workflow.results_of` reads what its parents returned.
  # Servers need `require "deckhand/workflow"` (docs/workflows.md).
  class Workflow
    # How long a workflow's keys live while it runs (seconds).
    TTL = 7 * 86_400
    # How long they live once it ended (seconds).
    DONE_TTL = 86_400

    attr_reader :id, :description

    attr_reader :config # :nodoc:
    protected :config

    class << self
      # Enables workflows and kept results for a Config: the step middleware
      # and the final-failure handler. `require "deckhand/workflow"` does it
      # for Deckhand.config.
      def install(config = Deckhand.config)
        if config.booted?
          raise ConfigError, "workflows must be installed before the server boots: require \"deckhand/workflow\" " \
            "in the file `deckhand -r` loads, or call Deckhand::Workflow.install(config) before starting it"
        end
        return config if config.server_middleware.include?(StepMiddleware)
        config.server_middleware.prepend(StepMiddleware, config)
        outcomes = StepOutcomes.new(config)
        config.on_final_failure do |job, error, outcome|
          outcomes.failed(job, error, outcome)
          StepMiddleware.new(config).failed_for_good(job, error)
        end
        config.on_expired { |job| outcomes.expired(job) }
        config.on_cancelled { |job, where| outcomes.cancelled(job, where) }
        config
      end

      # Inside a step: what the steps it waits for returned (through JSON),
      # in the order they were named; with `name`, only those steps of that
      # name. A step that did not succeed gives nil. A sub-workflow it waits
      # for gives what each of its steps returned, in the order they were added.
      #
      #   parts = Deckhand::Workflow.results_of("ParsePartJob")   # => [{"rows" => 120}, ...]
      def results_of(name = nil)
        wid, jid, config = Thread.current[StepMiddleware::CURRENT]
        raise Deckhand::Error, "Deckhand::Workflow.results_of is for a workflow step's perform, on a server that loaded deckhand/workflow" unless wid
        records = Store::Features::WorkflowRecords
        parents = records.parents_of(config.store, wid, jid).map { |parent, info, result| [parent, info && JSON.parse(info), result] }
        parents = parents.select { |_, info, _| info && info["name"] == name.to_s } if name
        parents.flat_map do |parent, info, result|
          next [result && JSON.parse(result)] unless info && info["kind"] == "workflow"
          records.members_of(config.store, wid, parent).map { |_, _, member| member && JSON.parse(member) }
        end
      end

      # Inside a step: its workflow, to add steps to as it runs
      # (Workflow::Extension). Those not pushed by hand are written as
      # perform returns, before the step's success.
      #
      #   flow = Deckhand::Workflow.current
      #   flow.add_many(ParsePartJob, [[7, 0], [7, 1]], name: "parts")   # the steps after this one wait for them too
      def current
        step = Thread.current[StepMiddleware::CURRENT]
        raise Deckhand::Error, "Deckhand::Workflow.current is for a workflow step's perform, on a server that loaded deckhand/workflow" unless step
        step[3]
      end

      # An args Array for add_many (or Workflow.current's) whose keywords
      # reach an Active Job class's perform as keywords, as its
      # perform_later(*args, **keywords) passes them; a keyword the add
      # takes itself (after:, on:, name:, graft:) is the job's here.
      #
      #   flow.add_many(ReportJob, [Deckhand::Workflow.args(7, format: "csv"), Deckhand::Workflow.args(8, name: "q3")])
      def args(*args, **keywords) = keywords.empty? ? args : [*args, Keywords.new(keywords)]

      # The workflow scripts with their clock set to now: the fleet's (Redis')
      # time, and a released job's enqueued_at as the configuration writes it.
      def ops(config) = Store::Scripts::WorkflowOps.now(config) # :nodoc:
    end

    def initialize(description = nil, ttl: TTL, done_ttl: DONE_TTL, config: Client.current_config)
      [[ttl, "ttl"], [done_ttl, "done_ttl"]].each { |value, what| JobResult.seconds!(value, "Deckhand::Workflow.new(#{what}:)") }
      @description = description
      @ttl = ttl
      @done_ttl = done_ttl
      @config = config
      @id = SecureRandom.urlsafe_base64(12)
      @graph = Graph.new(config)
      @pushed = false
      @within = nil
    end

    # One step: `job` (a job class, or MyJob.set(...)) with `args`, waiting
    # for `after` (a StepRef, a step's name, or an Array of them) as `on`
    # says. Returns its StepRef. The other keywords are an Active Job
    # class's perform's, passed as its perform_later passes them.
    def add(job, *args, after: nil, on: :success, name: nil, **keywords) = add_many(job, [Workflow.args(*args, **keywords)], after: after, on: on, name: name)

    # One step per args Array, each waiting for `after`; one StepRef for
    # them all. An Array from Workflow.args ends in keywords.
    def add_many(job, args_list, after: nil, on: :success, name: nil)
      raise Deckhand::Error, "workflow #{@id} was pushed: add its steps before #push" if @pushed
      raise Deckhand::Error, "workflow #{@id} is a sub-workflow of #{@within}: add steps to it before it is added" if @within
      raise ArgumentError, "add_many takes an Array of args Arrays, like [[1], [2]]" unless args_list.is_a?(Array) && args_list.all?(Array)
      @graph.add(job, args_list, after: after, on: on, name: name)
    end

    # A sub-workflow: every step of `flow` (a Deckhand::Workflow not
    # pushed) joins this one, those waiting for nothing there waiting for
    # `after` as `on` says; `flow` itself can then be neither changed nor
    # pushed. Returns a StepRef to name in a later step's `after:`, which
    # asks how the whole sub-workflow ended: :success when every step in it
    # succeeded, :failure when one failed or died, :complete once every one
    # ended. `name` defaults to its description, spaces as "-".
    #
    #   part = Deckhand::Workflow.new("part 3")
    #   parse = part.add(ParsePartJob, 7, 3)
    #   part.add(IndexPartJob, 7, 3, after: parse)
    #   sub = flow.add_workflow(part, after: fetch)
    #   flow.add(MergeJob, 7, after: sub)   # runs once both steps of the part succeeded
    def add_workflow(flow, after: nil, on: :success, name: nil)
      raise Deckhand::Error, "workflow #{@id} was pushed: add its steps before #push" if @pushed
      raise ArgumentError, "add_workflow takes a Deckhand::Workflow, got #{flow.inspect}" unless flow.is_a?(Workflow) && !flow.equal?(self)
      name ||= Workflow.group_name(flow)
      flow.taken_by(@id, @config) { |graph| @graph.add_graph(graph, after: after, on: on, name: name, description: flow.description) }
    end

    # Writes every step and starts the workflow: the steps waiting for
    # nothing are released as it starts. Returns its id. Pushing again
    # after a push that raised writes what is missing, once.
    def push
      raise ArgumentError, "workflow #{@id} has no steps: add them before #push" if @graph.empty?
      raise Deckhand::Error, "workflow #{@id} was pushed already" if @pushed
      raise Deckhand::Error, "workflow #{@id} is a sub-workflow of #{@within}: push that one, which pushes its steps" if @within
      JobCapture.batch!("workflow #{@id}")
      if RedisStandIn.active?
        raise Deckhand::Error, "Deckhand::Workflow#push needs Redis: Deckhand::Testing's fake and inline modes do not run " \
          "workflows; push it where Redis runs them (Deckhand::Testing.disable! { flow.push }) (docs/workflows.md)"
      end
      StepWriter.new(@config).write(@id, @graph, description: @description, ttl: @ttl, done_ttl: @done_ttl)
      @pushed = true
      @id
    end

    # Waits up to `timeout` seconds for the workflow to end, with a
    # blocking Redis read: {"state" => "succeeded" or "failed", "ended_at"
    # => epoch ms}. Raises ResultTimeout when it has not ended by then.
    def wait(timeout:) = Workflow.wait(@id, timeout: timeout, config: @config)

    # The same, for a workflow pushed elsewhere: its id.
    def self.wait(id, timeout:, config: Client.current_config)
      JobResult.seconds!(timeout, "Deckhand::Workflow#wait(timeout:)")
      raw = Store::Features::WorkflowRecords.wait(config.store, id, timeout)
      raise ResultTimeout, "workflow #{id} did not end within #{timeout} s" unless raw
      JSON.parse(raw)
    end

    # Its record: state ("held", "running", "succeeded", "failed"), counts
    # of steps by how they ended, times; nil once its keys expired.
    def self.status(id, config: Client.current_config) = Store::Features::WorkflowRecords.meta(config.store, id)

    # Cancels a workflow by hand: every step not started yet is cancelled
    # (state "c") and never runs; a running step finishes, releasing
    # nothing, and the workflow ends as "cancelled" once none runs. Returns
    # how many steps it cancelled, :ended when it had ended, or :not_found.
    #
    #   Deckhand::Workflow.cancel(flow.id)   # => 9
    def self.cancel(id, config: Client.current_config) = ops(config).cancel(id)

    # Every step: jid => {"state", "on", "wait", "parents", "info"} (docs/workflows.md).
    def self.steps(id, config: Client.current_config) = Store::Features::WorkflowRecords.steps(config.store, id)

    # add_workflow's: yields its steps, once; when the block returns they
    # are `wid`'s alone, so none is pushed twice. Raises when it was pushed
    # or added before, or built with another config than `config`, which
    # pushes its steps (a workflow's, or the server's running a step
    # that adds it: Extension#add_workflow).
    def taken_by(wid, config) # :nodoc:
      raise Deckhand::Error, "workflow #{@id} was pushed: a sub-workflow is added before any push, and pushed with its workflow" if @pushed
      raise ArgumentError, "workflow #{@id} is a sub-workflow of #{@within} already: a workflow is added once" if @within
      unless config.equal?(@config)
        raise ArgumentError, "workflow #{@id} was built with another config than #{wid}, which pushes its steps: " \
          "build both with the same one (Deckhand::Workflow.new(config:))"
      end
      taken = yield @graph
      @within = wid
      taken
    end

    # A sub-workflow's name when add_workflow is given none: its
    # description, spaces as "-".
    def self.group_name(flow) = flow.description.to_s.strip.gsub(/\s+/, "-").then { |text| text.empty? ? "workflow" : text } # :nodoc:

    def inspect = "#<Deckhand::Workflow #{@id} #{@description.inspect} (#{@graph.records.size} steps#{", pushed" if @pushed})>" # :nodoc:
  end
end

Deckhand::Workflow.install(Deckhand.config)
