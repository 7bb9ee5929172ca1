# frozen_string_literal: true

# `require "sidekiq/monitor"` in drop-in mode: Sidekiq::Monitor::Status (sidekiqmon).
require "deckhand/sidekiq"
require "deckhand/sidekiq/monitor"
