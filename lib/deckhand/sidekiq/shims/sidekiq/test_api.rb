# frozen_string_literal: true

# `require "sidekiq/test_api"` in drop-in mode: Sidekiq::Testing with pushes
# going to Redis until a mode is set (Sidekiq.testing!), as in Sidekiq 8.1.
first = !defined?(Sidekiq::Testing)
require "deckhand/sidekiq"
require "deckhand/sidekiq/testing"
Sidekiq::Testing.disable! if first
