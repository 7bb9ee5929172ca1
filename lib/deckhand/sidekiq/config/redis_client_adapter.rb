# frozen_string_literal: true

require_relative "../../store/connection/app_connection"

module Sidekiq
  # Sidekiq 7's names around its Redis connections, in drop-in mode: the
  # error classes application code rescues, and CompatClient, the class of
  # the connections `Sidekiq.redis` and a pool's `with` yield (Deckhand's
  # Store::Connection::AppConnection, which answers Sidekiq's command methods).
  #
  #   Sidekiq.redis { |conn| conn.get("key") }
  #   rescue Sidekiq::RedisClientAdapter::CommandError => e
  class RedisClientAdapter
    CompatClient = Deckhand::Store::Connection::AppConnection
    BaseError = CompatClient::BaseError
    CommandError = CompatClient::CommandError
  end
end
