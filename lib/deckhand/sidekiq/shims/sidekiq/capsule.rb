# frozen_string_literal: true

# `require "sidekiq/capsule"` in drop-in mode: Sidekiq::Capsule.
require "deckhand/sidekiq"
