# frozen_string_literal: true

module Deckhand
  module DropIn
    # Errors of a push as Sidekiq raises them, for applications written for
    # it. Sidekiq raises ArgumentError for a job it cannot push (bad args, a
    # missing class, an empty queue name): Deckhand's InvalidJob, with its
    # message, becomes one here. When Redis fails, Sidekiq's client raises
    # redis-client's errors (RedisClient::ConnectionError...): Deckhand's
    # RedisError becomes the redis-client error behind it, with Deckhand's
    # message, and `rescue Deckhand::RedisError` still catches it
    # (Deckhand::ForeignError; a bulk push's PushIncomplete is carried over).
    #
    #   DropIn.push_errors { client.push(item) }
    def self.push_errors
      yield
    rescue Deckhand::InvalidJob => e
      raise ArgumentError, e.message
    rescue Deckhand::RedisError => e
      raise Store::Connection::Translation.native(e)
    end
  end
end
