# frozen_string_literal: true

# `require "sidekiq/worker"` in drop-in mode.
require "deckhand/sidekiq"
