# frozen_string_literal: true

require_relative "../reply_witness"

module Deckhand
  class Store
    module Connection
      # What the store needs to talk to a Redis Cluster: the nodes to start
      # from, and redis-client's own cluster client (the redis-cluster-client
      # gem), loaded only here, when cluster mode is configured. The client
      # follows the cluster's topology by itself (MOVED and ASK redirections,
      # a failover's new primary) and pools connections per node.
      #
      #   mode = Deckhand::Store::Connection::ClusterMode.new(cluster: ["redis://10.0.0.1:7000"], password: "s3cret")
      #   mode.config(id: "deckhand:host:1:abc")   # => a RedisClient::ClusterConfig
      #   mode.location                            # => "redis-cluster://10.0.0.1:7000"
      class ClusterMode # :nodoc:
        GEM_HINT = "cluster mode needs the redis-cluster-client gem: add `gem \"redis-cluster-client\"` " \
          "to your Gemfile (docs/cluster.md)"

        # The cluster's nodes from redis options, or nil when they ask for a
        # plain Redis.
        def self.nodes(options)
          nodes = options[:cluster]
          return nil if nodes.nil? || nodes == false
          (nodes == true) ? [options.fetch(:url)] : Array(nodes)
        end

        attr_reader :nodes

        def initialize(options)
          @nodes = self.class.nodes(options)
          @client_options = options.except(:cluster, :url)
          load_client
        end

        # The cluster client's configuration; its connections carry
        # ReplyWitness after the middlewares given.
        def config(**extra)
          middlewares = [*extra.fetch(:middlewares) { @client_options[:middlewares] }, ReplyWitness]
          RedisClient.cluster(nodes: @nodes, **@client_options, **extra, middlewares: middlewares)
        end

        # The nodes without passwords, safe to log.
        def location
          "redis-cluster://" + @nodes.map { |node| Config::RedisUrl.redact(node).sub(%r{\A[a-z]+://}i, "") }.join(",")
        end

        private

        def load_client
          require "redis-cluster-client"
        rescue LoadError
          raise ConfigError, GEM_HINT
        end
      end
    end
  end
end
