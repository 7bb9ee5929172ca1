# frozen_string_literal: true

# Unique jobs for the end-to-end tests (test/e2e/unique_test.rb), on top of
# the shared test application.

require_relative "jobs"

module E2E
  # Unique for ten minutes: records each run in e2e:unique, then holds its
  # lock until the test says go (e2e:go), so every push made meanwhile meets it.
  class UniqueJob
    include Deckhand::Job

    deckhand_options unique_for: 600

    def perform(_name)
      E2E.call("RPUSH", "e2e:unique", jid)
      sleep 0.01 until E2E.call("EXISTS", "e2e:go") == 1
    end
  end
end
