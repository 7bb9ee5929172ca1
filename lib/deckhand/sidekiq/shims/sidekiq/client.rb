# frozen_string_literal: true

# `require "sidekiq/client"` in drop-in mode.
require "deckhand/sidekiq"
