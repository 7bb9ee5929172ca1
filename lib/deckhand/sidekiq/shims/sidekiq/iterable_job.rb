# frozen_string_literal: true

# `require "sidekiq/iterable_job"` in drop-in mode: Sidekiq::IterableJob.
require "deckhand/sidekiq"
