# frozen_string_literal: true

module Deckhand
  class Workflow
    # Writes a workflow's steps: the workflow is created held (no step runs),
    # its steps written a slice at a time, the last slice starting it, which
    # releases the steps that wait for nothing, in the same atomic step. If a
    # write fails the workflow stays held and #write raises: writing it again
    # (Workflow#push) adds each step once and starts it; a workflow never
    # started expires after its TTL with nothing run. So a push is all or
    # nothing: no step runs until every step is written.
    #
    #   StepWriter.new(config).write(wid, graph, description: "import", ttl: 604_800, done_ttl: 86_400)
    class StepWriter
      SLICE = 1_000

      def initialize(config)
        @config = config
      end

      def write(wid, graph, description:, ttl:, done_ttl:)
        ops = Workflow.ops(@config)
        ops.create(wid, description: description, ttl_ms: (ttl * 1000).ceil, done_ttl_ms: (done_ttl * 1000).ceil)
        slices = graph.records.each_slice(SLICE).to_a
        slices.each_with_index do |slice, i|
          steps = graph.encoded(slice, wid, @config.max_payload_bytes)
          reply = ops.add(wid, steps, queues: Graph.queues(slice), start: i == slices.size - 1)
          next if reply == "ok"
          raise Deckhand::Error, "workflow #{wid} #{(reply == "closed") ? "was pushed already" : "is gone (its keys expired)"}: " \
            "push a new Deckhand::Workflow"
        end
        wid
      end
    end
  end
end
