# frozen_string_literal: true

# `require "sidekiq/component"` in drop-in mode: Sidekiq::Component, for plugins.
require "deckhand/sidekiq"
require "deckhand/sidekiq/component"
