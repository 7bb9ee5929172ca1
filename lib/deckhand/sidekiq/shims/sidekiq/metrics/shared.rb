# frozen_string_literal: true

# `require "sidekiq/metrics/shared"` in drop-in mode: Sidekiq::Metrics::Histogram in Sidekiq's layout.
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/metrics_histogram"
