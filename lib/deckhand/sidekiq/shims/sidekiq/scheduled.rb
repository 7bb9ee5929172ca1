# frozen_string_literal: true

# `require "sidekiq/scheduled"` in drop-in mode: Sidekiq::Scheduled::Poller on Deckhand's scheduler.
require "deckhand/sidekiq"
require "deckhand/server"
require "deckhand/sidekiq/internals/scheduled_poller"
