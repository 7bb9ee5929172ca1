# frozen_string_literal: true

# `require "sidekiq/manager"` in drop-in mode: Sidekiq::Manager, named only (Deckhand supervises its own threads).
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/processor"
require "deckhand/sidekiq/internals/manager"
