# frozen_string_literal: true

# `require "sidekiq/paginator"` in drop-in mode: Sidekiq::Paginator.
require "deckhand/sidekiq"
require "deckhand/sidekiq/utils/paginator"
