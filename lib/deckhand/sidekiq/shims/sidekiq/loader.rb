# frozen_string_literal: true

# `require "sidekiq/loader"` in drop-in mode (drop-in mode loads it itself).
require "deckhand/sidekiq"
