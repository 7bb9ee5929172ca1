# frozen_string_literal: true

# `require "sidekiq/middleware/current_attributes"` in drop-in mode: Sidekiq::CurrentAttributes.persist.
require "deckhand/sidekiq"
require "deckhand/sidekiq/current_attributes"
