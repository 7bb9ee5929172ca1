# frozen_string_literal: true

# `require "sidekiq/version"` in drop-in mode: Sidekiq::VERSION and Sidekiq::MAJOR (plugins check them).
require "deckhand/sidekiq"
