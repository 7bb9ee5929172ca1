# frozen_string_literal: true

# `require "sidekiq/web"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/web"
