# frozen_string_literal: true

# `require "sidekiq/launcher"` in drop-in mode: Sidekiq::Launcher, a Deckhand server under Sidekiq's names.
require "deckhand/sidekiq"
require "deckhand/sidekiq/internals/manager"
require "deckhand/sidekiq/internals/scheduled_poller"
require "deckhand/sidekiq/internals/launcher"
