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
    class Graph
      CONDITIONS = {success: "s", complete: "c", failure: "f"}.freeze

      # on: the condition's letter and the queue; job: the job Hash.
      Record = Struct.new(:jid, :on, :parents, :name, :job)

      attr_reader :records

      # config: the workflow's, which builds its steps' jobs (JobCapture).
      def initialize(config)
        @config = config
        @records = []
        @jids = {}
        @names = Hash.new { |hash, name| hash[name] = [] }
      end

      def empty? = @records.empty?

      # Steps of `job` (a job class, or what `set` returns), one per args
      # Array, each waiting for every step `after` names. Returns their StepRef.
      def add(job, args_list, after:, on:, name:)
        cond = condition(on)
        parents = jids(after)
        jobs = JobCapture.new(@config).call(job, args_list)
        name = name(name || jobs.first["wrapped"] || jobs.first["class"])
        refs = jobs.map do |payload|
          payload.delete("enqueued_at") # written as it is released
          @records << Record.new(payload["jid"], "#{cond}#{payload["queue"]}", parents, name, payload)
          @jids[payload["jid"]] = true
          payload["jid"]
        end
        @names[name].concat(refs)
        StepRef.new(name, refs)
      end

      # The 6 strings per step workflow_add.lua takes, each job encoded
      # with the workflow's id ("wf").
      def encoded(records, wid, max_bytes)
        records.flat_map do |record|
          job = Payload.encode(record.job.merge("wf" => wid), max_bytes: max_bytes)
          info = {"name" => record.name, "class" => record.job["wrapped"] || record.job["class"], "queue" => record.job["queue"]}
          [record.jid, record.on, record.parents.join(" "), record.name, job, JSON.generate(info)]
        end
      end

      private

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
          when StepRef then (ref.jids.all? { |jid| @jids.key?(jid) }) ? ref.jids : unknown(ref.name)
          when Symbol, String then @names.fetch(ref.to_s) { unknown(ref) }
          else raise ArgumentError, "after: names steps: a StepRef (what add returns), a step's name, or an Array of them; got #{ref.inspect}"
          end
        end.uniq
      end

      def unknown(ref)
        raise ArgumentError, "no step named #{ref.to_s.inspect} in this workflow to wait for: name a step added to it " \
          "before this one (a step waits only for steps added before it)"
      end
    end
  end
end
