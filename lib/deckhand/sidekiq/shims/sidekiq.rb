# frozen_string_literal: true

# `require "sidekiq"` in drop-in mode (lib/deckhand/sidekiq.rb puts this folder first on the load path).
require "deckhand/sidekiq"
