# frozen_string_literal: true

# `require "sidekiq/api"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
