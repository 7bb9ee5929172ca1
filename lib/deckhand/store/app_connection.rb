# frozen_string_literal: true

module Deckhand
  class Store
    # A connection of the store lent to application code, for its own keys:
    # what `Sidekiq.redis { |conn| }` and a drop-in Sidekiq pool's `with`
    # yield. Sidekiq 7's command-as-method calls (conn.get("key"),
    # conn.sadd("set", "a")) become conn.call("GET", "key").
    #
    #   Store::AppConnection.lend(Deckhand.config.store) { |conn| conn.incr("app:visits") }
    class AppConnection
      def self.lend(store) = store.with { |conn| yield new(conn) }

      def initialize(client)
        @client = client
      end

      def call(*command, &) = @client.call(*command, &)

      def pipelined = @client.pipelined { |pipe| yield AppConnection.new(pipe) }

      def multi = @client.multi { |tx| yield AppConnection.new(tx) }

      # The redis-client configuration (its host, db, timeouts), not Redis' CONFIG command.
      def config = @client.config

      # Closes the socket; the next command opens a new one.
      def close = @client.close

      # INFO as a Hash of its fields, as Sidekiq 7's connection answers it.
      def info
        @client.call("INFO") { |text| text.lines(chomp: true).filter_map { |line| line.split(":", 2) if line.include?(":") }.to_h }
      end

      def evalsha(sha, keys, argv) = @client.call("EVALSHA", sha, keys.size, *keys, *argv)

      def method_missing(name, *args, &)
        @client.call(name.to_s.upcase, *args, &)
      end

      def respond_to_missing?(_name, _include_private = false) = true
    end
  end
end
