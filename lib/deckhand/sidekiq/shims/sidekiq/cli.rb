# frozen_string_literal: true

# `require "sidekiq/cli"` in drop-in mode.
require "deckhand/sidekiq"
require "deckhand/sidekiq/cli"
require "deckhand/sidekiq/internals/launcher"
