# frozen_string_literal: true

module Deckhand
  class API
    # Whether Redis may delete Deckhand's keys, read from INFO (never CONFIG,
    # which managed services disable) of every primary: each one's
    # maxmemory-policy, memory and evicted keys, and the warnings they call
    # for (a policy but noeviction, memory at 90% of maxmemory or more, keys
    # evicted since Redis started), in the words the servers log.
    #
    #   eviction = api.eviction
    #   eviction.primaries.map { |p| [p.address, p.policy, p.ratio] }   # => [["redis://10.0.0.5:6379/0", "allkeys-lru", 0.93]]
    #   eviction.warnings   # => ["Redis at redis://10.0.0.5:6379/0 has maxmemory-policy allkeys-lru (...): ..."]
    #   eviction.safe?      # => false
    class Eviction
      # Each primary's policy, maxmemory, used and evicted (Integers, bytes and keys).
      attr_reader :primaries

      def initialize(config)
        @primaries = Store::Connection::RedisMemory.read(config.store)
        @warnings = Store::Connection::MemoryConcerns.of(@primaries).map(&:text)
      end

      # The warnings about Redis' eviction policy, each a String naming the fix.
      def warnings = @warnings.dup

      # True when no primary calls for a warning: noeviction, memory under 90% of maxmemory, nothing evicted.
      def safe? = @warnings.empty?
    end
  end
end
