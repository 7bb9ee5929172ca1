# frozen_string_literal: true

# The application of the workflow churn (scenario 20): torture/app.rb's
# books, workflows enabled, and the steps' job. Loaded by the servers
# (`deckhand -r`) and by the driver, which pushes the workflows.
require_relative "app"
require "deckhand/workflow"

module Torture
  # A workflow's step: its start and finish in the books, `ms` of work
  # between them (sleeping, as I/O-bound jobs do).
  class StepJob
    include Deckhand::Job

    def perform(ms)
      Record.start(jid)
      sleep(ms / 1000.0) if ms.positive?
      Record.finish(jid)
      nil
    end
  end
end
