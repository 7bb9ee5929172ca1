# frozen_string_literal: true

require "json"
require_relative "job_results"

module Deckhand
  class Store
    module Features
      # Reads of workflows (their changes are Scripts::WorkflowOps'): a
      # workflow's record, its steps, their parents' results, the list of
      # workflows, and the wait for one to end. Hash fields named "~" are the
      # keys' placeholders (Layout::PlainWorkflows), never steps.
      #
      #   WorkflowRecords.meta(store, "Wf7x")    # => {"state" => "running", "total" => "12", ...}, or nil
      #   WorkflowRecords.steps(store, "Wf7x")   # => {jid => {"state" => "s", "on" => "sdefault", ...}}
      #   WorkflowRecords.wait(store, "Wf7x", 5) # => '{"state":"succeeded",...}' once it ended, or nil
      #   WorkflowRecords.counts(store)          # => {"pushed" => 12, "released" => 90, "ended" => {...}, ...}
      module WorkflowRecords # :nodoc:
        PLACEHOLDER = Layout::PlainWorkflows::PLACEHOLDER
        STEP_PARTS = %w[state on wait parents info errors].freeze

        module_function

        def meta(store, wid)
          found = store.call("HGETALL", store.layout.workflows.meta(wid))
          found.empty? ? nil : found
        end

        # Every step: jid => {part => value} for the parts of STEP_PARTS.
        def steps(store, wid)
          names = store.layout.workflows
          hashes = store.pipelined { |pipe| STEP_PARTS.each { |part| pipe.call("HGETALL", names.public_send(part, wid)) } }
          by_part = STEP_PARTS.zip(hashes).to_h
          by_part["state"].keys.reject { |jid| jid == PLACEHOLDER }.to_h do |jid|
            [jid, STEP_PARTS.to_h { |part| [part, by_part[part][jid]] }]
          end
        end

        # The parents of step `jid`, in the order they were declared, each
        # [jid, its info (JSON), its result (JSON or nil)], in one round trip
        # after the read of the parents.
        def parents_of(store, wid, jid) = entries(store, wid, store.call("HGET", store.layout.workflows.parents(wid), jid).to_s.split)

        # The steps of sub-workflow `gid` (Workflow#add_workflow) as
        # parents_of gives them, in the order they were added; a
        # sub-workflow in it stands for none: its steps are in it too.
        def members_of(store, wid, gid)
          entries(store, wid, store.call("HGET", store.layout.workflows.parents(wid), gid).to_s.split)
            .reject { |_, info, _| info && JSON.parse(info)["kind"] == "workflow" }
        end

        # [jid, info, result] of each step of `jids`, in one round trip.
        def entries(store, wid, jids)
          return [] if jids.empty?
          names = store.layout.workflows
          info, results = store.pipelined do |pipe|
            pipe.call("HMGET", names.info(wid), *jids)
            pipe.call("HMGET", names.results(wid), *jids)
          end
          jids.zip(info, results)
        end

        # The fleet's workflow counters, all time (Layout::PlainWorkflows::COUNTS,
        # Layout::ClusterWorkflows::COUNTS in cluster mode):
        # {"pushed" => 12, "released" => 90, "cancelled" => 3, "ended" => {"succeeded" => 11}}.
        def counts(store)
          names = store.layout.workflows
          ended, rest = store.call("HGETALL", names::COUNTS).partition { |field, _| field.start_with?(names::ENDED) }
          rest.to_h.transform_values(&:to_i).merge("ended" => ended.to_h { |field, n| [field.delete_prefix(names::ENDED), n.to_i] })
        end

        # How many workflows the index lists (some may have expired since).
        def count(store) = store.call("ZCARD", store.layout.workflows::INDEX)

        # The records of `limit` workflows from `offset` in the index, newest
        # first, in two round trips; those whose keys expired are left out.
        def list(store, offset, limit)
          names = store.layout.workflows
          ids = store.call("ZREVRANGE", names::INDEX, offset, offset + limit - 1)
          return [] if ids.empty?
          records = store.pipelined { |pipe| ids.each { |wid| pipe.call("HGETALL", names.meta(wid)) } }
          records.reject(&:empty?)
        end

        # The ending (JSON) once the workflow ended; waits up to `timeout`
        # seconds for it (JobResults.wait_on), nil when it has not.
        def wait(store, wid, timeout) = JobResults.wait_on(store, store.layout.workflows.done(wid), timeout)
      end
    end
  end
end
