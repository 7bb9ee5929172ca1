# frozen_string_literal: true

module Deckhand
  module Operations
    # The Prometheus families of Redis' memory, one sample per primary
    # (label `redis`), written alike by a server process's /metrics (from
    # its eviction watch's last look) and the fleet's (read at the scrape).
    #
    #   MemoryFamilies.write(out, Store::Connection::RedisMemory.read(store))
    module MemoryFamilies
      FAMILIES = [
        ["deckhand_redis_evicting_policy", :gauge, "1 when the Redis primary's maxmemory-policy may delete Deckhand's keys " \
          "(any but noeviction)", ->(node) { [node.evicting? ? 1 : 0, {"policy" => node.policy.to_s}] }],
        ["deckhand_redis_memory_used_ratio", :gauge, "Memory the Redis primary uses over its maxmemory (no sample without " \
          "a maxmemory)", ->(node) { node.ratio&.round(4) }],
        ["deckhand_redis_evicted_keys_total", :counter, "Keys the Redis primary evicted since it started (INFO stats " \
          "evicted_keys)", ->(node) { node.evicted }]
      ].freeze

      module_function

      # nodes: Store::Connection::RedisMemory::Node of each primary.
      def write(out, nodes)
        FAMILIES.each do |name, type, help, value_of|
          out.family(name, type, help)
          nodes.each do |node|
            value, labels = value_of.call(node)
            out.sample(name, {"redis" => node.address, **labels.to_h}, value) unless value.nil?
          end
        end
      end
    end
  end
end
