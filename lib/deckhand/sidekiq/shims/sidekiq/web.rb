# frozen_string_literal: true

# `require "sidekiq/web"` in drop-in mode (the API too, as in Sidekiq).
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
require "deckhand/sidekiq/web"
require "deckhand/sidekiq/internals/web_helpers"
