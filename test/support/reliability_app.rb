# frozen_string_literal: true

# The application the recovery end-to-end tests boot with `deckhand -r`: the
# end-to-end jobs, a job that kills its own process, and the reaper timing
# from the environment (the config file has no key for it).
require_relative "../e2e/apps/jobs"

Deckhand.configure do |config|
  config.reaper_interval = Float(ENV.fetch("DECKHAND_REAPER_INTERVAL", "0.2"))
end

module E2E
  # Kills the process running it, as the OOM killer or a crashing native
  # extension would: no ensure block runs, nothing is handed back.
  class PillJob
    include Deckhand::Job

    def perform
      E2E.call("RPUSH", "e2e:pill", Process.pid)
      Process.kill("KILL", Process.pid)
      sleep 10 # the signal arrives within microseconds
    end
  end
end

module E2E
  # Records its start and its args, then holds its thread until the test
  # pushes "go" (or 30 s pass): a job that is running whenever its process dies.
  class HoldJob
    include Deckhand::Job

    def perform(data)
      E2E.call("RPUSH", "e2e:hold:starts", JSON.generate([Process.pid, data]))
      E2E.wait("e2e:hold:go", 30)
      E2E.call("RPUSH", "e2e:hold:done", JSON.generate(data))
    end
  end
end
