# frozen_string_literal: true

require_relative "../store/features/workflow_records"
require_relative "../store/scripts/workflow/workflow_ops"
require_relative "step_record"

module Deckhand
  class API
    # One workflow (Deckhand::Workflow, docs/workflows.md): its record, its
    # steps by level, and what an operator does to it.
    #
    #   flow = api.workflow(id)                   # nil once its keys expired
    #   flow.state                                # => "failed"
    #   flow.counts                               # => {"total" => 12, "succeeded" => 9, "dead" => 1, ...}
    #   flow.levels.map { |steps| steps.map(&:state) }   # => [["dead"], ["cancelled", "succeeded"]]
    #   flow.retry_step(flow.steps.find(&:failed?).jid)  # => true: back to its queue; the rest resumes
    #   flow.cancel                               # => how many steps it cancelled, or :ended
    class WorkflowRecord
      # The counts #counts reads from the workflow's record.
      COUNTS = %w[total open succeeded failed dead cancelled].freeze

      # @return [String] the workflow's id
      attr_reader :id
      # @return [String] what its pusher called it
      attr_reader :description
      # @return [String] "held", "running", "succeeded", "failed" or "cancelled"
      attr_reader :state
      # @return [Time, nil] when it was pushed
      attr_reader :created_at
      # @return [Time, nil] when it ended
      attr_reader :ended_at
      # @return [Time, nil] when someone cancelled it
      attr_reader :cancelled_at

      # The workflow `id`, or nil when Redis holds none of that id.
      #
      # @return [WorkflowRecord, nil]
      def self.find(config, id)
        record = Store::Features::WorkflowRecords.meta(config.store, id.to_s) or return nil
        new(config, record)
      end

      # record: the workflow's hash in Redis (Store::Features::WorkflowRecords.meta).
      def initialize(config, record)
        @config = config
        @record = record
        @id = record["id"].to_s
        @description = record["description"].to_s
        @state = record["state"].to_s
        @created_at, @ended_at, @cancelled_at = record.values_at("created_at", "ended_at", "cancelled_at").map { |ms| time(ms) }
      end

      # Its steps by how they stand: "total", "open" (not ended),
      # "succeeded", "failed", "dead", "cancelled".
      #
      # @return [Hash{String => Integer}]
      def counts = COUNTS.to_h { |name| [name, @record[name].to_i] }

      # Whether it has ended.
      def ended? = %w[succeeded failed cancelled].include?(@state)

      # Every step, read once, by level then name; a sub-workflow among
      # them (StepRecord#sub_workflow?), and each step in one knows which
      # (StepRecord#within).
      #
      # @return [Array<StepRecord>]
      def steps
        @steps ||= begin
          found = Store::Features::WorkflowRecords.steps(@config.store, @id).map { |jid, fields| StepRecord.new(jid, fields) }
          by_jid = found.to_h { |step| [step.jid, step] }
          found.each { |step| step.level = depth(step, by_jid, {}) }
          # A sub-workflow in another holds fewer steps: the smallest holding a step is its innermost.
          found.select(&:sub_workflow?).sort_by { |group| -group.parents.size }.each do |group|
            group.parents.each { |jid| by_jid[jid]&.within = group.jid }
          end
          found.sort_by { |step| [step.level, step.name, step.jid] }
        end
      end

      # Its sub-workflows (Workflow#add_workflow), each with its steps.
      #
      # @return [Hash{StepRecord => Array<StepRecord>}]
      def sub_workflows = steps.select(&:sub_workflow?).to_h { |group| [group, steps.select { |step| step.within == group.jid }] }

      # The steps grouped by level: level 0 waits for nothing, level n for steps of level n - 1 or less.
      #
      # @return [Array<Array<StepRecord>>]
      def levels = steps.group_by(&:level).sort.map(&:last)

      # Cancels it by hand (Deckhand::Workflow.cancel): every step not
      # started is cancelled, running ones finish. Returns how many steps it
      # cancelled, :ended or :not_found.
      #
      # @return [Integer, Symbol]
      def cancel = Store::Scripts::WorkflowOps.now(@config).cancel(@id)

      # Sends its dead step `jid` back to its queue from the dead set: when
      # it starts, the steps its death cancelled wait again, and its success
      # releases them, once. Returns false when the step is not dead, its
      # job is no longer in the dead set, or the workflow was cancelled (its
      # steps no longer run).
      #
      # @return [Boolean]
      def retry_step(jid)
        step = steps.find { |candidate| candidate.jid == jid } or return false
        return false unless step.state == "dead" && @cancelled_at.nil?
        dead = JobSet.new(:dead, @config)
        entry = dead.find_jid(jid, exact: true) or return false
        dead.retry([entry]) == 1
      end

      private

      def depth(step, by_jid, seen)
        return seen[step.jid] if seen.key?(step.jid)
        seen[step.jid] = 0 # a cycle cannot be pushed; this only guards against corrupt data
        parents = step.parents.filter_map { |jid| by_jid[jid] }
        seen[step.jid] = parents.empty? ? 0 : parents.map { |parent| depth(parent, by_jid, seen) }.max + 1
      end

      def time(ms) = (ms.to_s =~ /\A\d+\z/) ? Time.at(ms.to_i / 1000.0).utc : nil
    end
  end
end
