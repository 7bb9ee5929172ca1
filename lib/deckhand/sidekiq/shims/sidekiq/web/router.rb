# frozen_string_literal: true

# `require "sidekiq/web/router"` in drop-in mode: the Web extension API, with Sidekiq::Web.
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
require "deckhand/sidekiq/web"
