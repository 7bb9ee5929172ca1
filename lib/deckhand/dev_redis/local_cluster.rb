# frozen_string_literal: true

require_relative "../dev_redis"

module Deckhand
  class DevRedis
    # A private Redis Cluster for development, the test suite and benchmarks:
    # `primaries` primaries with `replicas` replicas each, every node a
    # redis-server on free loopback ports (its client port and its cluster bus
    # port) with its files under one directory, the 16,384 slots split evenly
    # between the primaries. One primary with no replica is a cluster too.
    #
    #   cluster = Deckhand::DevRedis::LocalCluster.start(dir: "tmp/cluster", primaries: 3, replicas: 1)
    #   cluster.urls                 # => ["redis://127.0.0.1:40123", ...] (primaries first)
    #   cluster.primary_for("{queue:default}")   # => the DevRedis serving that key's slot
    #   cluster.kill(node)           # SIGKILL, as a crash would
    #   cluster.wait_until_healthy   # after a failover: every slot served again
    #   cluster.stop
    class LocalCluster
      # The slots of a Redis Cluster.
      SLOTS = 16_384

      # Builds one (see #initialize) and starts it.
      def self.start(...) = new(...).start

      attr_reader :nodes

      # node_timeout: ms before the cluster marks a silent primary failed and
      # promotes its replica (cluster-node-timeout).
      def initialize(dir:, primaries: 3, replicas: 1, node_timeout: 1_000, ready_timeout: 30)
        raise ArgumentError, "a cluster needs at least one primary" if primaries < 1
        @dir = File.expand_path(dir)
        @primaries = primaries
        @replicas = replicas
        @node_timeout = node_timeout
        @ready_timeout = ready_timeout
        @nodes = []
        @bus_ports = {} # a node's client port => its cluster bus port
      end

      # Starts the nodes, joins them into a cluster and waits until every slot is served.
      def start
        @nodes = Array.new(@primaries * (1 + @replicas)) { |i| start_node(i) }
        assign_slots
        meet
        wait { @nodes.all? { |node| known_nodes(node) == @nodes.size } }
        replicate
        wait_until_healthy
        self
      rescue
        stop
        raise
      end

      # The running nodes' URLs, for `redis: {url: urls.join(",")}` (cluster mode).
      def urls = @nodes.select(&:running?).map { |node| node.url.delete_suffix("/0") }

      # The running node that is primary for `key`'s slot now.
      def primary_for(key)
        slot = command(live_node, "CLUSTER", "KEYSLOT", key)
        command(live_node, "CLUSTER", "SLOTS").each do |first, last, (_, port)|
          return @nodes.find { |node| node.port == port } if slot.between?(first, last)
        end
        nil
      end

      # The running nodes that are primaries now.
      def primaries = @nodes.select { |node| node.running? && role(node) == "master" }

      # Kills `node` with SIGKILL, as a crash would.
      def kill(node) = node.kill

      # Waits until every running node reports the cluster ok, every slot
      # served by a running primary, and all of them agree on which (right
      # after a failover, a node may still tell clients the old map).
      def wait_until_healthy
        wait do
          @nodes.select(&:running?).all? { |node| command(node, "CLUSTER", "INFO")[/cluster_state:(\w+)/, 1] == "ok" } &&
            served_by_live_primaries? && one_map?
        end
      end

      # Stops every node.
      def stop
        @nodes.each(&:stop)
      end

      private

      def start_node(index)
        bus = DevRedis.free_port
        DevRedis.new(dir: File.join(@dir, "node-#{index}"), persistent: false,
          # A node learns its own address from a peer's MEET: a lone primary
          # would tell clients an empty host without the announced one.
          extra: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-announce-ip", "127.0.0.1",
            "--cluster-node-timeout", @node_timeout.to_s, "--cluster-port", bus.to_s]).start.tap do |node|
          @bus_ports[node.port] = bus
        end
      end

      def primary_nodes = @nodes.first(@primaries)

      def assign_slots
        per = SLOTS / @primaries
        primary_nodes.each_with_index do |node, i|
          last = (i == @primaries - 1) ? SLOTS - 1 : (i + 1) * per - 1
          command(node, "CLUSTER", "ADDSLOTSRANGE", i * per, last)
        end
      end

      def meet
        first = @nodes.first
        @nodes.drop(1).each do |node|
          command(node, "CLUSTER", "MEET", "127.0.0.1", first.port, @bus_ports.fetch(first.port))
        end
      end

      def replicate
        ids = primary_nodes.map { |node| command(node, "CLUSTER", "MYID") }
        @nodes.drop(@primaries).each_with_index do |node, i|
          command(node, "CLUSTER", "REPLICATE", ids[i % @primaries])
        end
        wait { @nodes.drop(@primaries).all? { |node| role(node) == "slave" && link_up?(node) } }
      end

      def known_nodes(node) = command(node, "CLUSTER", "NODES").lines.size

      def role(node) = command(node, "ROLE").first

      def link_up?(node) = command(node, "INFO", "replication").include?("master_link_status:up")

      def served_by_live_primaries?
        ports = @nodes.select(&:running?).map(&:port)
        slots = command(live_node, "CLUSTER", "SLOTS")
        slots.sum { |first, last, _| last - first + 1 } == SLOTS &&
          slots.all? { |_, _, (_, port)| ports.include?(port) }
      end

      # Every running node tells the same slot map and the same roles, each
      # node's role as it says itself (clients build their map from any).
      def one_map?
        running = @nodes.select(&:running?)
        roles = running.to_h { |node| [node.port, role(node)] }
        views = running.map do |node|
          [command(node, "CLUSTER", "SLOTS").map { |first, last, (_, port)| [first, last, port] }.sort,
            command(node, "CLUSTER", "NODES").lines.filter_map { |line| node_role(line) }.sort]
        end
        views.uniq.size == 1 && views.first.last.all? { |port, node_role| roles.fetch(port, node_role) == node_role }
      end

      # [port, "master" or "slave"] of a CLUSTER NODES line, nil for a node
      # marked failed or without an address.
      def node_role(line)
        _, address, flags = line.split(" ", 4)
        return nil if flags.include?("fail")
        port = address[/:(\d+)@/, 1] or return nil
        [port.to_i, flags.include?("master") ? "master" : "slave"]
      end

      def live_node = @nodes.find(&:running?)

      def command(node, *args)
        client = RedisClient.new(host: "127.0.0.1", port: node.port, connect_timeout: 1, read_timeout: 2)
        client.call(*args)
      ensure
        client&.close
      end

      def wait(&condition)
        deadline = Monotonic.now + @ready_timeout
        until holds?(&condition)
          raise ConnectionError, "the Redis Cluster under #{@dir} did not settle within #{@ready_timeout} s" if
            Monotonic.now > deadline
          sleep 0.05
        end
      end

      # A node that does not answer yet (starting, or just killed) is no answer.
      def holds?
        yield
      rescue RedisClient::Error
        false
      end
    end
  end
end
