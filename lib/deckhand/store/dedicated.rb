# frozen_string_literal: true

module Deckhand
  class Store
    # A connection of its own, outside the pool, for a thread that blocks inside
    # Redis (an idle waiter's BLMOVE) while processors keep the pooled ones.
    # Errors come out translated, as from the store.
    #
    #   conn = store.dedicated
    #   conn.wait_move("queue:default", landing, 2)   # => [the payload moved or nil after 2 s, nil]
    #   conn.close
    class Dedicated
      def initialize(redis_config, translation, cluster: false)
        @client = redis_config.new_client
        @translation = translation
        @cluster = cluster
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
      def wait_move(source, destination, timeout, hash: nil, field: nil)
        return wait_then_read(source, destination, timeout, hash, field) if @cluster
        @client.pipelined do |pipe|
          pipe.blocking_call(timeout, "BLMOVE", source, destination, "RIGHT", "LEFT", timeout)
          pipe.call("HGET", hash, field) if hash
        end.then { |moved, value| [moved, value] }
      rescue RedisClient::Error => e
        raise @translation.call(e)
      end

      def close = @client.close

      private

      def wait_then_read(source, destination, timeout, hash, field)
        moved = @client.blocking_call(timeout, "BLMOVE", source, destination, "RIGHT", "LEFT", timeout)
        [moved, hash && @client.call("HGET", hash, field)]
      end
    end
  end
end
