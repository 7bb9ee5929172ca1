# frozen_string_literal: true

# `require "sidekiq/middleware/chain"` in drop-in mode.
require "deckhand/sidekiq"
