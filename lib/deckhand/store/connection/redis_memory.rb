# frozen_string_literal: true

require_relative "info"
require_relative "cluster_wait"
require_relative "../tags/queue_placement/slots"

module Deckhand
  class Store
    module Connection
      # What each Redis primary says about its memory: its maxmemory-policy,
      # maxmemory and used memory (INFO memory) and the keys it evicted since
      # it started (INFO stats). Read from INFO, never CONFIG: managed services
      # and hardened servers disable CONFIG (`rename-command CONFIG ""`), and
      # INFO still tells the policy there. One round trip of two INFO calls
      # (Redis 6.2 takes one section per call): to the one Redis in plain
      # mode; in cluster mode to every primary at once, after CLUSTER SLOTS
      # named them, since each primary holds its own queues and evicts on its
      # own. A keyless INFO in a cluster goes to one node the client picks, so
      # each primary's calls ride on its own sub-pipeline, the client
      # internals Store::Connection::ClusterWait reaches the same way (its VETTED pin).
      #
      #   nodes = RedisMemory.read(store)
      #   nodes.first.policy      # => "allkeys-lru"
      #   nodes.first.evicting?   # => true: it deletes keys when memory runs short
      #   nodes.first.ratio       # => 0.93 (used / maxmemory; nil without a maxmemory)
      #   nodes.first.evicted     # => 29_312, since that Redis started
      module RedisMemory # :nodoc:
        # address: the store's location in plain mode, "host:port" of a primary in cluster mode.
        Node = Struct.new(:address, :policy, :maxmemory, :used, :evicted) do
          # Whether the policy lets Redis delete keys; false for noeviction and
          # where INFO does not say (policy nil: a server that is not Redis).
          def evicting? = !policy.nil? && policy != "noeviction"

          # volatile-* policies evict keys that have a TTL only.
          def volatile? = policy.to_s.start_with?("volatile-")

          def ratio = (maxmemory.to_i.positive? && used) ? used.to_f / maxmemory : nil
        end

        CALLS = [%w[INFO memory], %w[INFO stats]].freeze
        UNSUPPORTED = "reading every primary's memory needs redis-cluster-client's per-node pipelines " \
          "(tested with #{Connection::ClusterWait::VETTED}); pin that version".freeze

        module_function

        # Every primary's Node; raises the store's RedisError (INFO refused:
        # a CommandError) like any call.
        def read(store)
          return cluster(store) if store.cluster?
          [node(store.location, *store.pipelined { |pipe| CALLS.each { |call| pipe.call(*call) } })]
        end

        def node(address, memory, stats) = from_fields(address, Connection::Info.parse(memory).merge(Connection::Info.parse(stats)))

        # The Node of INFO's fields (Info.fields of the whole INFO holds them).
        def from_fields(address, fields)
          Node.new(address, fields["maxmemory_policy"], number(fields["maxmemory"]), number(fields["used_memory"]),
            number(fields["evicted_keys"]))
        end

        def cluster(store)
          primaries = Tags::QueuePlacement::Slots.read(store).primaries
          replies = store.with do |conn|
            conn.pipelined(exception: false) do |pipe|
              raise ConfigError, UNSUPPORTED unless pipe.respond_to?(:append_pipeline, true)
              primaries.each { |primary| CALLS.each { |call| pipe.send(:append_pipeline, primary).call_v(call) } } # private: see VETTED
            end
          end
          failed = replies.find { |reply| reply.is_a?(RedisClient::Error) }
          raise store.refusal(failed) if failed
          primaries.zip(replies.each_slice(CALLS.size)).map { |primary, (memory, stats)| node(primary, memory, stats) }
        end

        def number(text) = text && Integer(text, exception: false)
      end
    end
  end
end
