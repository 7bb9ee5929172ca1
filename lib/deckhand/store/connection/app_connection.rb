# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # A connection of the store lent to application code, for its own keys:
      # what `Sidekiq.redis { |conn| }` and a drop-in Sidekiq pool's `with`
      # yield. Sidekiq 7's command-as-method calls (conn.get("key"),
      # conn.sadd("set", "a")) become conn.call("GET", "key").
      #
      #   Store::Connection::AppConnection.lend(Deckhand.config.store) { |conn| conn.incr("app:visits") }
      #
      # As Sidekiq 7 lends its connections: errors come out as redis-client
      # raised them (application code rescues RedisClient::CommandError, which
      # Sidekiq names BaseError and CommandError), and after a failover error
      # the connection is reopened and the block run once more.
      class AppConnection # :nodoc:
        BaseError = RedisClient::Error
        CommandError = RedisClient::CommandError

        # A failover turned the server into a replica, the primary lacks
        # replicas, or a blocking command was unblocked by one.
        REOPEN = /READONLY|NOREPLICAS|UNBLOCKED/

        def self.lend(store)
          store.with do |client|
            retried = false
            begin
              yield new(client)
            rescue RedisClient::Error => e
              raise if retried || !REOPEN.match?(e.message)
              retried = true
              client.close
              retry
            end
          end
        rescue Deckhand::RedisError => e
          # The store translates; the application gets redis-client's own error.
          raise(e.cause.is_a?(RedisClient::Error) ? e.cause : e)
        end

        def initialize(client)
          @client = client
        end

        # redis-client's own calls, keyword flags included (withscores: true).
        %i[call call_v call_once call_once_v blocking_call blocking_call_v scan sscan hscan zscan].each do |name|
          define_method(name) { |*args, **flags, &block| @client.public_send(name, *args, **flags, &block) }
        end

        # A subscription on this connection's socket, as redis-client hands
        # it over: the pooled client opens a new one for its next command.
        def pubsub = @client.pubsub

        def id = @client.id

        def pipelined = @client.pipelined { |pipe| yield Connection::AppConnection.new(pipe) }

        def multi = @client.multi { |tx| yield Connection::AppConnection.new(tx) }

        # The redis-client configuration (its host, db, timeouts), not Redis' CONFIG command.
        def config = @client.config

        # Closes the socket; the next command opens a new one.
        def close = @client.close

        # INFO as a Hash of its fields, as Sidekiq 7's connection answers it.
        def info
          @client.call("INFO") { |text| text.lines(chomp: true).filter_map { |line| line.split(":", 2) if line.include?(":") }.to_h }
        end

        def evalsha(sha, keys, argv) = @client.call("EVALSHA", sha, keys.size, *keys, *argv)

        def method_missing(name, *args, **flags, &)
          @client.call(name.to_s.upcase, *args, **flags, &)
        end

        def respond_to_missing?(_name, _include_private = false) = true
      end
    end
  end
end
