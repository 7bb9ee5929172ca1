# frozen_string_literal: true

# `require "sidekiq/redis_connection"` in drop-in mode: Sidekiq::RedisConnection.create.
require "deckhand/sidekiq"
