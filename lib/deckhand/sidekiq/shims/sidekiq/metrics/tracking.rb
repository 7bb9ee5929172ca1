# frozen_string_literal: true

# `require "sidekiq/metrics/tracking"` in drop-in mode: ExecutionTracker on Deckhand's metrics (a server records them by itself).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/job_retry"
require "deckhand/sidekiq/internals/execution_tracker"
