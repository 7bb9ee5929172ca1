# frozen_string_literal: true

# `require "sidekiq/metrics/query"` in drop-in mode: Sidekiq::Metrics::Query on Deckhand's metrics.
require "deckhand/sidekiq"
require "deckhand/sidekiq/metrics/query"
