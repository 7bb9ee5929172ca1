# frozen_string_literal: true

# `require "sidekiq/logger"` in drop-in mode: Sidekiq::Logger and its formatters.
require "deckhand/sidekiq"
