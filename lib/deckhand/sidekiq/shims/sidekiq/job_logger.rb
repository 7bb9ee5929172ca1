# frozen_string_literal: true

# `require "sidekiq/job_logger"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/job/logger"
