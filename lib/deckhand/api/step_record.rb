# frozen_string_literal: true

require_relative "../store/json_object"

module Deckhand
  class API
    # One step of a workflow (Deckhand::Workflow) as its page shows it: its
    # job, what it waits for, where it stands, and why it failed or was
    # cancelled.
    #
    #   step = api.workflow(id).steps.first
    #   step.state       # => "dead"
    #   step.level       # => 0: it waits for nothing; 1: for steps of level 0 ...
    #   step.error       # => {"error_class" => "ArgumentError", "error_message" => "...", ...}
    #   step.within      # => the jid of the sub-workflow it is in (Workflow#add_workflow), or nil
    #
    # A sub-workflow is listed as a step of its own (#sub_workflow?), with
    # no job: it waits for every step in it (#parents) and ends as they end.
    class StepRecord
      # A state's letter in Redis (docs/workflows.md) => its name.
      STATES = {"w" => "waiting", "q" => "queued", "r" => "running", "y" => "retrying", "s" => "succeeded",
                "x" => "failed", "d" => "dead", "c" => "cancelled"}.freeze
      # What `on:` said => its letter in Redis.
      CONDITIONS = {"s" => :success, "f" => :failure, "c" => :complete, "g" => :sub_workflow}.freeze

      # @return [String] the step's jid
      attr_reader :jid
      # @return [String] its name (its class's unless `name:` said otherwise)
      attr_reader :name
      # @return [String] its job's class
      attr_reader :job_class
      # @return [String] the queue its job goes to
      attr_reader :queue
      # @return [String] one of STATES' names
      attr_reader :state
      # @return [Symbol] :success, :failure or :complete: when it runs; :sub_workflow for a sub-workflow
      attr_reader :condition
      # @return [Array<String>] the jids of the steps it waits for
      attr_reader :parents
      # @return [Hash, nil] why it failed for good or was cancelled by hand
      attr_reader :error
      # @return [Integer] its depth: 0 when it waits for nothing, else one more than its deepest parent's
      attr_accessor :level
      # @return [String, nil] the jid of the innermost sub-workflow it is in, nil when it is in none
      attr_accessor :within
      # @return [String, nil] a sub-workflow's description, nil for a step with a job
      attr_reader :description

      # fields: the step's parts as Store::Features::WorkflowRecords.steps reads them.
      def initialize(jid, fields)
        info = Store::JsonObject.record(fields["info"])
        @jid = jid
        @name = info["name"].to_s
        @job_class = info["class"].to_s
        @queue = info["queue"].to_s
        @state = STATES.fetch(fields["state"].to_s, "unknown")
        @condition = CONDITIONS[fields["on"].to_s[0]]
        @parents = fields["parents"].to_s.split
        @error = Store::JsonObject.parse(fields["errors"])
        @level = 0
        @within = nil
        @description = info["description"].to_s if info["kind"] == "workflow"
      end

      # Whether it is a sub-workflow (Workflow#add_workflow) rather than a step with a job.
      def sub_workflow? = @condition == :sub_workflow

      # Whether it failed for good (died or was dropped): it can be retried
      # from the dead set when it died.
      def failed? = %w[failed dead].include?(@state)

      # Whether it has ended, however.
      def ended? = %w[succeeded failed dead cancelled].include?(@state)
    end
  end
end
