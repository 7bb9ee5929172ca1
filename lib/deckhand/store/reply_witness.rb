# frozen_string_literal: true

module Deckhand
  class Store
    # A redis-client middleware of cluster stores (Store::Connection::ClusterMode): it
    # remembers, on the fiber, the last connection error a pipeline or a
    # transaction met. redis-cluster-client sends a watched transaction
    # again after its connection was lost, and the error of the first try
    # goes no further; a marked push (Store::PushMarks), which asks Redis
    # instead of letting it run twice, names that error as the cause of
    # what it raises.
    #
    #   ReplyWitness.forget
    #   cluster.multi(watch: [mark]) { |tx| ... }   # its first try lost its connection
    #   ReplyWitness.last   # => the RedisClient::ConnectionError of that try, or nil
    module ReplyWitness # :nodoc:
      KEY = :deckhand_reply_witness

      def self.last = Thread.current[KEY]

      def self.forget = Thread.current[KEY] = nil

      def call_pipelined(commands, config)
        super
      rescue RedisClient::ConnectionError => e
        Thread.current[KEY] = e
        raise
      end
    end
  end
end
