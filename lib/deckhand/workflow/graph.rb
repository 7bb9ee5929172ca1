# frozen_string_literal: true

require "json"
require_relative "step_ref"
require_relative "job_capture"

module Deckhand
  class Workflow
    # A workflow's steps, declared and not yet written. Each step is a
    # Record, parents before kids (a step can only wait for steps added
    # before it), so the graph has no cycle.
    #
    #   graph = Graph.new(config)
    #   fetch = graph.add(FetchFileJob, [[7]], after: nil, on: :success, name: nil)
    #   graph.add(ParsePartJob, [[7, 0], [7, 1]], after: fetch, on: :success, name: "parts")
    #   graph.records.size   # => 3
    #
    # A running step's additions (Workflow::Extension) are a graph too,
    # whose `after:` may also name steps already in the workflow
    # (`outside`, which answers their jids or "@name" for the script to
    # find) and whose jids derive from the adding step's (`next_jid`).
    class Graph
      CONDITIONS = {success: "s", complete: "c", failure: "f"}.freeze
      # The condition of a sub-workflow's own step (#add_graph).
      GROUP = "g"

      # on: the condition's letter and the queue; job: the job Hash (nil
      # for a sub-workflow). graft: whether the adding step's dependents
      # wait for it (Extension). description: a sub-workflow's.
      Record = Struct.new(:jid, :on, :parents, :name, :job, :graft, :description)

      attr_reader :records

      # config: the workflow's, which builds its steps' jobs (JobCapture).
      def initialize(config, outside: nil, next_jid: nil)
        @config = config
        @outside = outside
        @next_jid = next_jid
        @records = []
        @jids = {}
        @names = Hash.new { |hash, name| hash[name] = [] }
      end

      def empty? = @records.empty?

      # Steps of `job` (a job class, or what `set` returns), one per args
      # Array, each waiting for every step `after` names. Returns their StepRef.
      def add(job, args_list, after:, on:, name:, graft: nil)
        cond = condition(on)
        parents = jids(after)
        jobs = JobCapture.new(@config).call(job, args_list)
        name = name(name || jobs.first["wrapped"] || jobs.first["class"])
        refs = jobs.map do |payload|
          payload.delete("enqueued_at") # written as it is released
          payload["jid"] = @next_jid.call if @next_jid
          @records << Record.new(payload["jid"], "#{cond}#{payload["queue"]}", parents, name, payload, graft)
          @jids[payload["jid"]] = true
          payload["jid"]
        end
        @names[name].concat(refs)
        StepRef.new(name, refs)
      end

      # A sub-workflow: the steps of `inner` (a Graph), those that wait for
      # nothing there waiting for `after` as `on` says, and a step of its own
      # (condition g, no job) that waits for every one of them and ends as
      # they all ended (lib/workflow_finish.lua), to name in a later step's
      # `after:`. Returns its StepRef. In a graph with `next_jid` (a running
      # step's, Extension), every step takes a jid from it, in order, and
      # with `graft` the sub-workflow's own step is grafted, and its steps
      # are held to a grafted step's rules (INSIDE) without being waited
      # for one by one.
      def add_graph(inner, after:, on:, name:, description:, graft: nil)
        raise ArgumentError, "the sub-workflow #{description.inspect} has no steps: add them before adding it" if inner.empty?
        cond = condition(on)
        parents = jids(after)
        name = name(name)
        renamed = {}
        inner.records.each do |record|
          step = rejid(record, renamed)
          step.graft = INSIDE if graft
          step.parents, step.on = parents, "#{cond}#{record.job["queue"]}" if step.parents.empty?
          @records << step
          @jids[step.jid] = true
        end
        gid = @next_jid ? @next_jid.call : Payload.jid
        @records << Record.new(gid, GROUP, inner.records.map { |record| renamed[record.jid] }, name, nil, graft, description.to_s)
        @jids[gid] = true
        @names[name] << gid
        StepRef.new(name, [gid])
      end

      # The graft of a step inside a grafted sub-workflow (#add_graph): it
      # waits as a grafted step may, and the adding step's dependents wait
      # for the sub-workflow's own step, not for it.
      INSIDE = :inside
      # A step's graft as workflow_extend.lua reads it.
      GRAFT_FLAGS = {true => "1", INSIDE => "i", false => "", nil => ""}.freeze

      # The queues the steps of `records` go to.
      def self.queues(records) = records.filter_map { |record| record.job && record.job["queue"] }.uniq

      # The 6 strings per step workflow_add.lua takes, each job encoded
      # with the workflow's id ("wf"); with `by` (the jid of the running
      # step that adds them, kept in their info), the 7 workflow_extend.lua
      # takes, the last one its graft (GRAFT_FLAGS).
      def encoded(records, wid, max_bytes, by: nil)
        records.flat_map do |record|
          job = record.job && Payload.encode(record.job.merge("wf" => wid), max_bytes: max_bytes)
          info = record.job ? {"name" => record.name, "class" => record.job["wrapped"] || record.job["class"], "queue" => record.job["queue"]} : group_info(record)
          info.update("by" => by, "graft" => !!record.graft) if by # workflow_extend.lua reads them as written here, in this order
          strings = [record.jid, record.on, record.parents.join(" "), record.name, job || "", JSON.generate(info)]
          strings << GRAFT_FLAGS.fetch(record.graft) if by
          strings
        end
      end

      private

      # `record` with a jid of its own from next_jid (kept without one), its
      # parents' jids as `renamed` (old jid => new, filled in order) says.
      def rejid(record, renamed)
        step = record.dup
        renamed[record.jid] = step.jid = @next_jid ? @next_jid.call : record.jid
        step.parents = record.parents.map { |jid| renamed.fetch(jid) }
        step.job = record.job&.merge("jid" => step.jid)
        step
      end

      # What a reader of the workflow sees of a sub-workflow (API::StepRecord).
      def group_info(record) = {"name" => record.name, "kind" => "workflow", "description" => record.description}

      def condition(on)
        CONDITIONS.fetch(on.to_s.to_sym) do
          raise ArgumentError, "on: #{on.inspect} is not a condition; use :success (the default), :complete or :failure"
        end
      end

      def name(given)
        text = given.to_s
        if text.empty? || text.match?(/\s/) || text == Store::Layout::PlainWorkflows::PLACEHOLDER
          raise ArgumentError, "step name #{given.inspect}: give a name without spaces, like \"parts\""
        end
        text
      end

      # The jids of what `after:` names: StepRefs, names of steps added
      # before (Symbols or Strings), or an Array of them.
      def jids(refs)
        list = refs.is_a?(Array) ? refs : [refs].compact # Array() would take a StepRef apart
        list.flat_map do |ref|
          case ref
          when StepRef then (ref.jids.all? { |jid| @jids.key?(jid) }) ? ref.jids : outside(ref) { unknown(ref.name) }
          when Symbol, String then @names.fetch(ref.to_s) { outside(ref) { unknown(ref) } }
          else raise ArgumentError, "after: names steps: a StepRef (what add returns), a step's name, or an Array of them; got #{ref.inspect}"
          end
        end.uniq
      end

      def outside(ref, &)
        @outside&.call(ref) || yield
      end

      def unknown(ref)
        raise ArgumentError, "no step named #{ref.to_s.inspect} in this workflow to wait for: name a step added to it " \
          "before this one (a step waits only for steps added before it)"
      end
    end
  end
end
