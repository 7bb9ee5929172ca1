# frozen_string_literal: true

# `require "sidekiq/testing"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/testing"
