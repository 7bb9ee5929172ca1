# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # A connection of its own, outside the pool, for a thread that blocks inside
      # Redis (an idle waiter's BLMOVE) while processors keep the pooled ones.
      # Errors come out translated, as from the store.
      #
      #   conn = store.dedicated
      #   conn.wait_move("queue:default", landing, 2)   # => [the payload moved or nil after 2 s, nil]
      #   conn.close
      class Dedicated
        # Counts the connections a client opens (redis-client middleware): a
        # client that reconnects by itself and sends a command again (the
        # cluster client does, and any with reconnect_attempts) hides a reply
        # lost with the connection.
        module Connects # :nodoc:
          def connect(config)
            super.tap { config.custom[:deckhand_connected]&.call }
          end
        end

        # Yields the redis-client options to add (middlewares:, custom:) for
        # the configuration to open the connection with.
        def initialize(translation, cluster: false)
          @connects = 0
          @reconnected = false
          @id = @id_at = nil
          @client = yield(middlewares: [Connects], custom: {deckhand_connected: -> { @connects += 1 }}).new_client
          @translation = translation
          @cluster = cluster
        end

        # True when the last #wait_move's connection was opened again while it
        # ran: a move Redis made may have had its reply lost, and the command
        # sent again on the new connection.
        def reconnected? = @reconnected

        # This connection's CLIENT ID, which another connection names to end
        # a wait under way on it (CLIENT UNBLOCK): opens the connection when
        # it is not open, and is read again once the client opened a new one
        # (a new connection has a new id).
        def id
          return @id if @id && @id_at == @connects
          value = @client.call("CLIENT", "ID")
          @id_at = @connects
          @id = value
        rescue RedisClient::Error => e
          raise @translation.call(e)
        end

        # Waits up to `timeout` seconds for an element at the tail (right) of
        # `source` and moves it to the head (left) of `destination` as it comes
        # (BLMOVE); then, in the same round trip, reads `field` of `hash`.
        # Returns [the element or nil when none came, the field's value].
        #
        # In cluster mode the read follows the move in a call of its own (both
        # keys are in the queue's slot): the cluster client may run a pipeline
        # on worker threads (REDIS_CLIENT_MAX_THREADS), and a wait must stay on
        # the waiting thread, so that killing it (a stop, a quiet) ends the wait
        # instead of leaving a BLMOVE behind to take a job.
        #
        # A move that happened is always returned, even when the read after it
        # failed (a key of the wrong type, Redis refusing): the field's value is
        # then UNREAD, which equals no value, so that the caller reads it again
        # before it runs the job. Raising instead would leave the job moved into
        # `destination` with no one told to run it.
        def wait_move(source, destination, timeout, hash: nil, field: nil)
          before = @connects
          blocking_move(source, destination, timeout, hash, field)
        ensure
          # The first connection of all is no reconnection.
          @reconnected = @connects > [before, 1].max
        end

        # The value a read returns when it failed after a move.
        UNREAD = Object.new.freeze

        # Every element of the list `key` and, read with it, `field` of
        # `hash`: [elements, the field's value]. What an idle waiter reads to
        # find a move whose reply it lost (Server::Fetch::Idle::LandingWatch).
        def read_list(key, hash:, field:)
          commands = [["LRANGE", key, 0, -1], ["HGET", hash, field]]
          # One call each in cluster mode, as #wait_then_read (same slot).
          return commands.map { |command| @client.call(*command) } if @cluster
          @client.pipelined { |pipe| commands.each { |command| pipe.call(*command) } }
        rescue RedisClient::Error => e
          raise @translation.call(e)
        end

        def close = @client.close

        # Ends the wait under way on the connection whose CLIENT ID is `id`
        # (a BLMOVE returns nil, or the element it moved when one came first),
        # sent through `store`'s pool. 1 when a wait was ended, 0 when none
        # was under way (yet) on it.
        def self.unblock(store, id) = store.call("CLIENT", "UNBLOCK", id)

        private

        def blocking_move(source, destination, timeout, hash, field)
          return wait_then_read(source, destination, timeout, hash, field) if @cluster
          moved, value = @client.pipelined(exception: false) do |pipe|
            pipe.blocking_call(timeout, "BLMOVE", source, destination, "RIGHT", "LEFT", timeout)
            pipe.call("HGET", hash, field) if hash
          end
          raise moved if moved.is_a?(RedisClient::Error)
          [moved, value.is_a?(RedisClient::Error) ? UNREAD : value]
        rescue RedisClient::Error => e
          raise @translation.call(e)
        end

        def wait_then_read(source, destination, timeout, hash, field)
          moved = @client.blocking_call(timeout, "BLMOVE", source, destination, "RIGHT", "LEFT", timeout)
          value = begin
            hash && @client.call("HGET", hash, field)
          rescue RedisClient::Error
            moved ? UNREAD : raise
          end
          [moved, value]
        end
      end
    end
  end
end
