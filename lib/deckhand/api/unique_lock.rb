# frozen_string_literal: true

module Deckhand
  class API
    # The unique lock of a job (unique_for), for the dashboard and scripts:
    # who holds it, for how long, and "release lock", the way out for a lock
    # whose job is gone (deleting a retry does not release it, as in Sidekiq
    # Enterprise).
    #
    #   lock = api.unique_lock(api.retries.first)   # nil for a job that is not unique
    #   lock.key       # => "unique:9f86d0..."
    #   lock.holder    # => "b4a5..." (the jid holding it), nil once free
    #   lock.held?     # => true when this job holds it
    #   lock.release   # => true (released only while this job holds it)
    class UniqueLock
      # record: a JobRecord (queued job, set entry) or a job Hash.
      def self.of(record, config)
        item = record.respond_to?(:item) ? record.item : record
        key, jid = Unique.held_by(item, config.store.layout)
        key && new(key, jid, config)
      end

      attr_reader :key, :jid

      def initialize(key, jid, config)
        @key = key
        @jid = jid
        @store = config.store
      end

      # The jid holding the lock, or nil once it is free.
      def holder = state&.first

      # Milliseconds the lock has left (nil once free).
      def ttl_ms = state&.last

      # Whether this lock's jid still holds it.
      def held? = holder == @jid

      # Frees the lock if this lock's jid still holds it.
      def release
        @state = nil
        Store::Features::UniqueLocks.release(@store, @key, @jid)
      end

      private

      def state = (@state ||= [Store::Features::UniqueLocks.holder(@store, @key)]).first
    end
  end
end
