# frozen_string_literal: true

# `require "sidekiq/job_retry"` in drop-in mode: Sidekiq::JobRetry on Deckhand's retry logic.
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/job_retry"
