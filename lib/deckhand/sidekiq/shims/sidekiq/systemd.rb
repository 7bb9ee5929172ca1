# frozen_string_literal: true

# `require "sidekiq/systemd"` in drop-in mode: a Deckhand server speaks systemd notify by itself (docs/operations.md).
require "deckhand/sidekiq"
require "deckhand/sidekiq/sd_notify"
