# frozen_string_literal: true

# `require "sidekiq/sd_notify"` in drop-in mode: Sidekiq::SdNotify.
require "deckhand/sidekiq"
require "deckhand/sidekiq/sd_notify"
