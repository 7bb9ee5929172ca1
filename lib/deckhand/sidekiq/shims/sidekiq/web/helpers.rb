# frozen_string_literal: true

# `require "sidekiq/web/helpers"` in drop-in mode: Sidekiq::WebHelpers, whose helpers raise Unsupported.
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/web_helpers"
