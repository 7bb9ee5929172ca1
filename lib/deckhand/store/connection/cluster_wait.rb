# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # WAIT in a cluster pipeline, sent to the nodes that took the pipeline's
      # writes. WAIT names no key, so redis-cluster-client sends a WAIT of its
      # own to a random node (as a call, to every primary, summing the
      # replies): neither says anything about the node that took a push, and
      # WAIT only counts the writes of its own connection. The client's
      # pipeline keeps one sub-pipeline per node, each sent on one connection
      # in order; a WAIT appended to the sub-pipeline of each node written to
      # runs right after that node's writes, on their connection.
      #
      # Not covered: a write redirected while its slot migrates to another
      # primary (resharding, MOVED or ASK from a node that is still a primary)
      # runs on the new node without a WAIT there, and the old node's WAIT
      # answers for its own replicas (docs/cluster.md).
      #
      # That sub-pipeline is the client's internal (redis-cluster-client 0.17:
      # the private Pipeline#append_pipeline and @pipelines). The gem has no
      # public way to reach a node's connection inside a pipeline (its
      # Cluster#pipelined routes by key, #with yields the whole cluster), so
      # the suite's bundle pins the one version it was read and tested
      # against (VETTED; Gemfile, gemfiles/jruby.gemfile), and
      # test/unit/store/connection/cluster_wait_test.rb fails on any other until the
      # internals are read again. A client without them raises ConfigError at
      # the first push rather than WAIT on the wrong node.
      #
      #   replies, acks = Deckhand::Store::Connection::ClusterWait.pipelined(store, ["WAIT", "1", "500"], 0.5) do |pipe|
      #     pipe.call("LPUSH", "{queue:a}", json)
      #   end
      #   acks  # => [1]: one WAIT, on the node that took the LPUSH
      module ClusterWait # :nodoc:
        # The redis-cluster-client version whose internals this reads.
        VETTED = "0.17.8"
        UNSUPPORTED = "push_replicas in cluster mode needs redis-cluster-client's per-node pipelines " \
          "(the 0.17 series, tested with #{VETTED}; Gemfile: gem \"redis-cluster-client\", \"#{VETTED}\"); " \
          "this version has none. Pin that version or set push_replicas = 0"

        module_function

        # Runs the block's writes and a WAIT after them on each node written
        # to; returns the writes' replies and the WAITs' (an Integer, or the
        # error a node answered). The pipeline does not raise at the first
        # error reply: a write sent to a node that a failover made a replica
        # is redirected to the new primary (and the client learns where the
        # slot lives now) while the WAIT behind it fails on the replica. Any
        # other error reply is raised.
        def pipelined(store, command, timeout, &block)
          replies, acks = replies(store, command, timeout, &block)
          failed = replies.find { |reply| reply.is_a?(RedisClient::Error) }
          raise store.refusal(failed) if failed
          [replies, acks]
        end

        # As #pipelined, with the writes' error replies left in place (a
        # script's NOSCRIPT, which its caller answers by sending the source).
        def replies(store, command, timeout)
          store.with do |conn|
            waits = 0
            replies = conn.pipelined(exception: false) do |pipe|
              yield pipe
              waits = append(pipe, command, timeout)
            end
            [replies, replies.pop(waits)]
          end
        end

        # Appends `command` once per node the pipeline writes to; returns how many.
        def append(pipe, command, timeout)
          nodes = node_keys(pipe)
          nodes.each { |node| pipe.send(:append_pipeline, node).blocking_call_v(timeout, command) } # private: see VETTED
          nodes.size
        end

        def node_keys(pipe)
          unless pipe.respond_to?(:append_pipeline, true) && pipe.instance_variable_defined?(:@pipelines)
            raise ConfigError, UNSUPPORTED
          end
          (pipe.instance_variable_get(:@pipelines) || {}).keys
        end
      end
    end
  end
end
