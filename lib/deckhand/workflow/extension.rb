# frozen_string_literal: true

require "digest"
require_relative "graph"

module Deckhand
  class Workflow
    # A running step's hold on its own workflow (Workflow.current): it adds
    # steps, as a fan-out only known at run time. They are written all at
    # once, as perform returns (before the step's success is told) or at
    # #push, with workflow_extend.lua: all of them or none; each is released
    # at once when what it waits for has ended as it asks, or cancelled
    # when that can no longer happen. A grafted step (the default) holds
    # back the steps that wait for the adding step: they wait for it too,
    # as their own `on:` says, and read its result (results_of). So that
    # none of them ends up waiting for itself, a grafted step waits only for
    # the adding step (#step), steps that ended, and steps it grafted.
    #
    #   def perform(upload_id)
    #     flow = Deckhand::Workflow.current
    #     parts = flow.add_many(ParsePartJob, (0...count_parts(upload_id)).map { |i| [upload_id, i] }, name: "parts")
    #     flow.add(SummaryJob, upload_id, after: parts, graft: false)   # the merge after this step needn't wait for it
    #   end
    #
    # A step's jids derive from the adding step's jid and the order of its
    # adds, so a rerun of the adding step (its process killed before its end
    # was told) adds nothing twice, provided it adds the same steps in the
    # same order.
    class Extension
      attr_reader :id, :step

      # The jid of the `n`th step (from 1) that step `adder` of workflow
      # `wid` adds, in any run of it.
      def self.jid(wid, adder, n) = Digest::SHA256.hexdigest("#{wid} #{adder} #{n}")[0, 24] # :nodoc:

      # `jid` and `name`: the running step's; `config`: its server's.
      def initialize(wid, jid, name, config)
        @id = wid
        @jid = jid
        @config = config
        @step = StepRef.new(name, [jid])
        @count = 0
        @graph = nil
      end

      # One step, as Workflow#add, waiting for `after`: the running step
      # (#step), steps added here, or steps of the workflow by name.
      # `graft: false` keeps the running step's dependents from waiting for
      # it. The other keywords are an Active Job class's perform's (Workflow.args).
      def add(job, *args, after: nil, on: :success, name: nil, graft: true, **keywords)
        add_many(job, [Workflow.args(*args, **keywords)], after: after, on: on, name: name, graft: graft)
      end

      # One step per args Array, as Workflow#add_many; one StepRef for them all.
      def add_many(job, args_list, after: nil, on: :success, name: nil, graft: true)
        raise ArgumentError, "add_many takes an Array of args Arrays, like [[1], [2]]" unless args_list.is_a?(Array) && args_list.all?(Array)
        raise ArgumentError, "graft: #{graft.inspect}: give true (the default) or false" unless graft == true || graft == false
        graph.add(job, args_list, after: after, on: on, name: name, graft: graft)
      end

      # A sub-workflow, as Workflow#add_workflow: every step of `flow` (a
      # Deckhand::Workflow not pushed, built with this server's config)
      # joins this workflow, waiting for `after` as `on` says. Grafted (the
      # default), the running step's dependents wait for the whole of it
      # (its StepRef), and its steps wait as grafted steps may. Its steps
      # take jids as #add's do, in order, so a rerun that adds it again,
      # built the same, adds nothing twice.
      def add_workflow(flow, after: nil, on: :success, name: nil, graft: true)
        raise ArgumentError, "add_workflow takes a Deckhand::Workflow, got #{flow.inspect}" unless flow.is_a?(Workflow)
        raise ArgumentError, "graft: #{graft.inspect}: give true (the default) or false" unless graft == true || graft == false
        name ||= Workflow.group_name(flow)
        flow.taken_by(@id, @config) { |inner| graph.add_graph(inner, after: after, on: on, name: name, description: flow.description, graft: graft) }
      end

      # Whether steps were added since the last push.
      def pending? = !@graph.nil? && !@graph.empty?

      # Writes the steps added since the last push, all or none. Returns how
      # many it added (0 when a rerun of this step had added them), or
      # :cancelled when the workflow was cancelled by hand (nothing added).
      # A push that raised added none and forgets them: let the step fail,
      # and its retry adds them again. An add whose steps wait for steps the
      # workflow lacks, or for what a grafted step may not, raises
      # ArgumentError.
      def push
        return 0 unless pending?
        graph, @graph = @graph, nil # pushed or refused, they are gone from here: later adds name them through Redis
        steps = graph.encoded(graph.records, @id, @config.max_payload_bytes, by: @jid)
        reply = refusal_is_argument_error { Workflow.ops(@config).add_from(@id, @jid, steps, queues: Graph.queues(graph.records)) }
        case reply
        when Integer then reply
        when "cancelled" then :cancelled
        when "not_running"
          raise Deckhand::Error, "step #{@jid} of workflow #{@id} is not running: add steps from inside its perform (Deckhand::Workflow.current)"
        else raise Deckhand::Error, "workflow #{@id} is gone (its keys expired): no step was added"
        end
      end

      def inspect = "#<Deckhand::Workflow::Extension #{@id} from #{@jid}#{" (#{@graph.records.size} to push)" if pending?}>" # :nodoc:

      private

      # The script refuses an add whose steps wait for what they may not
      # (before any write): that is the caller's mistake, said as Ruby says it.
      def refusal_is_argument_error
        yield
      rescue Deckhand::CommandError => e
        why = e.message[/ERR workflow: (.*?; nothing was changed)/, 1] or raise
        raise ArgumentError, "workflow #{@id}: #{why}", cause: e
      end

      def graph
        @graph ||= Graph.new(@config, outside: ->(ref) { ref.is_a?(StepRef) ? ref.jids : ["@#{ref}"] }, next_jid: -> { next_jid })
      end

      def next_jid
        @count += 1
        Extension.jid(@id, @jid, @count)
      end
    end
  end
end
