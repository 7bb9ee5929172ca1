# frozen_string_literal: true

# `require "sidekiq/embedded"` in drop-in mode: Sidekiq::Embedded.
require "deckhand/sidekiq"
require "deckhand/sidekiq/embedded"
