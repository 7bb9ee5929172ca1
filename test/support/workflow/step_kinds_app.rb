# frozen_string_literal: true

# Workflow steps of every kind of job: chunked, under a limiter, unique.
# They record what they did under `app:` keys (WorkflowApp).

require_relative "workflow_app"

module StepKindsApp
  # A chunked step's class: each call records its members' args; member 3
  # fails (and dies: no retries), the others give their own result.
  class Tally
    include Deckhand::Job

    deckhand_options chunk: {size: 10, wait: 0.5}, retry: 0, result: {ttl: 60}

    def perform_chunk(chunk)
      WorkflowApp.ran("chunk", chunk.args)
      chunk.each do |(i), job|
        next chunk.fail(job, ArgumentError.new("member #{i} fails on purpose")) if i == 3
        chunk.result(job, {"n" => 10 * i})
      end
    end

    def perform(i) = raise(ArgumentError, "a chunked class runs in chunks: #{i}")
  end

  # One block a second may pass; over it, a job is rescheduled after 0.3 s.
  EVERY_SECOND = Deckhand::Limiter.window("workflow-kinds-second", 1, 1, backoff: ->(_overrated, _job) { 0.3 })
  # One block a minute: the second step stays over the limit.
  EVERY_MINUTE = Deckhand::Limiter.window("workflow-kinds-minute", 1, 60, backoff: ->(_overrated, _job) { 0.5 })

  # Spent by the test first: every block over it is rescheduled.
  SPENT = Deckhand::Limiter.window("workflow-kinds-spent", 1, 60, backoff: ->(_overrated, _job) { 0.3 })

  # Waits while it runs until its workflow is cancelled, then goes over the limit.
  class OverAfterCancel
    include Deckhand::Job

    def perform(wid)
      WorkflowApp.ran("waits", [])
      sleep 0.01 until Deckhand::Workflow.status(wid)["cancelled_at"]
      SPENT.within_limit { WorkflowApp.ran("passed", []) }
    end
  end

  # Records each attempt, then its pass through the limiter it names.
  class Limited
    include Deckhand::Job

    def perform(label, limiter)
      WorkflowApp.ran("try", [label])
      StepKindsApp.const_get(limiter).within_limit { WorkflowApp.ran("pass", [label]) }
      "#{label} passed"
    end
  end

  # Runs in the throttled queue "exports": records how many of its jobs ran at once.
  class Export
    include Deckhand::Job

    deckhand_options queue: "exports"

    def perform(i)
      WorkflowApp.ran("export", [i, WorkflowApp.call("INCR", "app:exporting")])
      sleep 0.05
      WorkflowApp.call("DECR", "app:exporting")
      i
    end
  end

  # A unique job.
  class Unique
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(label)
      WorkflowApp.ran(label, [])
      label
    end
  end
end
