# frozen_string_literal: true

# `require "sidekiq/web"` in drop-in mode (the API too, as in Sidekiq), with
# the extension API: Sidekiq::WebApplication, WebAction, WebHelpers.
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
require "deckhand/sidekiq/web"
