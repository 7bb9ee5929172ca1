# frozen_string_literal: true

# `require "sidekiq/fetch"` in drop-in mode: Sidekiq::BasicFetch, named only (Deckhand fetches by itself).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/basic_fetch"
