# frozen_string_literal: true

# `require "sidekiq/ring_buffer"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/utils/ring_buffer"
