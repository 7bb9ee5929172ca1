# frozen_string_literal: true

# `require "sidekiq/config"` in drop-in mode: Sidekiq::Config.
require "deckhand/sidekiq"
