# frozen_string_literal: true

# The application the workflow end-to-end tests boot with `deckhand -r`: the
# workflow test jobs, and two ways for a step to SIGKILL its own process, as
# the OOM killer would (no ensure block runs, nothing is handed back): while
# it runs (WorkflowApp::KilledWhileRunning), and right after its success was
# recorded, before its job is acknowledged (this middleware). Each kills
# only on the first run of its label.
require_relative "workflow_app"

Deckhand.configure do |config|
  config.reaper_interval = Float(ENV.fetch("DECKHAND_REAPER_INTERVAL", "0.2"))
end

module WorkflowApp
  # Outside the workflow's own middleware (added after it, before it in the
  # chain): what runs after it returns runs after the step's success was
  # recorded, before the job is acknowledged.
  class KillAfterSuccess
    def call(_job, payload, _queue)
      value = yield
      label = payload["args"].first
      WorkflowApp.die! if label.to_s.start_with?("kill-after") && WorkflowApp.first?(label)
      value
    end
  end
end

Deckhand.config.server_middleware.prepend(WorkflowApp::KillAfterSuccess)
