# frozen_string_literal: true

# A chunked job for the end-to-end tests: it records each call and holds
# it until the test lets it go. The tests load it to push; the CLI boots
# chunk_app.rb, which adds the reliability app's reaper timing.
require_relative "jobs"

module E2E
  class HeldChunkJob
    include Deckhand::Job

    deckhand_options chunk: {size: 50, wait: 1}

    # Records the call's members, waits for one "go" (up to 30 s), then
    # records each member done.
    def perform_chunk(chunk)
      E2E.call("RPUSH", "e2e:chunk:calls", JSON.generate([Process.pid, chunk.jobs.map { |job| job["jid"] }]))
      E2E.wait("e2e:chunk:go", 30)
      chunk.each { |_, job| E2E.call("RPUSH", "e2e:chunk:done", job["jid"]) }
    end
  end
end
