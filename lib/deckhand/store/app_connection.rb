# frozen_string_literal: true

module Deckhand
  class Store
    # A connection of the store lent to application code, for its own keys:
    # what `Sidekiq.redis { |conn| }` yields in drop-in mode. Sidekiq 7's
    # command-as-method calls (conn.get("key"), conn.sadd("set", "a")) become
    # conn.call("GET", "key").
    #
    #   Store::AppConnection.lend(Deckhand.config.store) { |conn| conn.incr("app:visits") }
    class AppConnection
      def self.lend(store) = store.with { |conn| yield new(conn) }

      def initialize(conn)
        @conn = conn
      end

      def call(*command, &) = @conn.call(*command, &)

      def pipelined = @conn.pipelined { |pipe| yield AppConnection.new(pipe) }

      def multi = @conn.multi { |tx| yield AppConnection.new(tx) }

      def method_missing(name, *args, &)
        @conn.call(name.to_s.upcase, *args, &)
      end

      def respond_to_missing?(_name, _include_private = false) = true
    end
  end
end
