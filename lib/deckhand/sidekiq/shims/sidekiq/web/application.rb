# frozen_string_literal: true

# `require "sidekiq/web/application"` in drop-in mode: the Web extension API, with Sidekiq::Web.
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
require "deckhand/sidekiq/web"
