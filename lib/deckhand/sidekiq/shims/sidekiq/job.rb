# frozen_string_literal: true

# `require "sidekiq/job"` in drop-in mode.
require "deckhand/sidekiq"
