# frozen_string_literal: true

# `require "sidekiq/profiler"` in drop-in mode: Sidekiq::Profiler on Deckhand's.
require "deckhand/sidekiq"
require "deckhand/sidekiq/profiler"
