# frozen_string_literal: true

# `require "sidekiq/middleware/modules"` in drop-in mode.
require "deckhand/sidekiq"
