# frozen_string_literal: true

# The application of the workflow churn (scenario 20): torture/app.rb's
# books, workflows enabled, and the steps' job. Loaded by the servers
# (`deckhand -r`) and by the driver, which pushes the workflows.
require_relative "app"
require "deckhand/workflow"

module Torture
  # A workflow's step: its start and finish in the books, `ms` of work
  # between them (sleeping, as I/O-bound jobs do). With `grow`, it adds
  # that many steps to its workflow halfway through (grafted: the steps
  # after it wait for them), so a kill can fall between the add and its end.
  class StepJob
    include Deckhand::Job

    def perform(ms, grow = 0)
      Record.start(jid)
      sleep(ms / 2000.0) if ms.positive?
      if grow.positive?
        flow = Deckhand::Workflow.current
        flow.add_many(StepJob, Array.new(grow) { [ms] })
        flow.push
      end
      sleep(ms / 2000.0) if ms.positive?
      Record.finish(jid)
      nil
    end
  end
end
