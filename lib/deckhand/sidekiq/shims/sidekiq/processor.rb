# frozen_string_literal: true

# `require "sidekiq/processor"` in drop-in mode: Sidekiq::Processor, which runs a job handed to it on Deckhand's parts.
require "deckhand/sidekiq"
require "deckhand/sidekiq/job/logger"
require "deckhand/sidekiq/internals/basic_fetch"
require "deckhand/sidekiq/internals/processor"
require "deckhand/sidekiq/internals/job_retry"
