# frozen_string_literal: true

# `require "sidekiq/deploy"` in drop-in mode: Sidekiq::Deploy, deploy marks on the metrics.
require "deckhand/sidekiq"
require "deckhand/sidekiq/deploy"
