# frozen_string_literal: true

# The application the chunk end-to-end tests boot with `deckhand -r`: the
# reliability app (the reaper's timing from the environment) and the
# chunked job.
require_relative "../../support/reliability_app"
require_relative "chunk_jobs"
