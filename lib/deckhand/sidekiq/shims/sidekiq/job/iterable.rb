# frozen_string_literal: true

# `require "sidekiq/job/iterable"` in drop-in mode: Sidekiq::Job::Iterable.
require "deckhand/sidekiq"
