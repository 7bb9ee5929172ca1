# frozen_string_literal: true

# `require "sidekiq/web/helpers"` in drop-in mode: Sidekiq::WebHelpers, the
# helpers of Web extensions' pages.
require "deckhand/sidekiq"
require "deckhand/sidekiq/api"
require "deckhand/sidekiq/web"
