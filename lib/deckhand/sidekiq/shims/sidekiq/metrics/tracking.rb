# frozen_string_literal: true

# `require "sidekiq/metrics/tracking"` in drop-in mode: named only (a Deckhand server records metrics by itself).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/execution_tracker"
