# frozen_string_literal: true

module Deckhand
  class Store
    # Pushes that must survive a failover (opt-in, `config.push_replicas`).
    # Redis replicates asynchronously: a push acknowledged by the primary may
    # not have reached a replica yet, and a failover in that instant promotes
    # a replica without it. With push_replicas set, a push is followed by
    # `WAIT replicas timeout` on the same connection, of the same node that
    # took it (in cluster mode, of every node the push wrote to), and a push
    # fewer replicas acknowledged in time raises NotReplicated: the jobs are
    # in the primary, not yet proven to be anywhere else (docs/cluster.md).
    # It wraps the client's plain push (Store::Queues.push); pushes written
    # by a script (unique jobs, a batch's jobs in plain mode) do not WAIT yet.
    #
    #   Deckhand.configure { |c| c.push_replicas = 1; c.push_replicas_timeout = 0.5 }
    #   Deckhand::Store::Durability.pipelined(store, {"a" => [json]}) { |pipe| pipe.call("LPUSH", "queue:a", json) }
    #   # => the pipeline's replies; raises Deckhand::NotReplicated (naming the jids) when WAIT came short
    class Durability
      attr_reader :replicas, :timeout

      # The durability a store's pushes wait for, or nil (plain pipelines).
      def self.for(replicas, timeout) = replicas.positive? ? new(replicas: replicas, timeout: timeout) : nil

      # A push pipeline: the store's own, with WAIT appended when its
      # durability is set. queued and scheduled are the payloads it writes
      # (as Store::Queues.push takes them), read only for the error's jids.
      def self.pipelined(store, queued = {}, scheduled = [], &block)
        durability = store.durability
        durability ? durability.pipelined(store, queued, scheduled, &block) : store.pipelined(&block)
      end

      def initialize(replicas:, timeout:)
        @replicas = replicas
        @timeout = timeout
        freeze
      end

      def pipelined(store, queued = {}, scheduled = [], &block)
        replies, acks = store.cluster? ? ClusterWait.pipelined(store, command, @timeout, &block) : plain(store, &block)
        acknowledged = acks.map { |ack| ack.is_a?(Integer) ? ack : 0 }.min
        return replies unless acknowledged && acknowledged < @replicas
        raise not_replicated(store, acknowledged, jids(queued, scheduled), acks.find { |ack| !ack.is_a?(Integer) })
      end

      private

      def command = ["WAIT", @replicas.to_s, (@timeout * 1000).ceil.to_s]

      # Plain mode: the pipeline is one connection, the WAIT follows the writes.
      def plain(store)
        replies = store.pipelined do |pipe|
          yield pipe
          pipe.blocking_call_v(@timeout, command)
        end
        [replies, [replies.pop]]
      end

      def jids(queued, scheduled)
        (queued.values.flatten + scheduled.each_slice(2).map(&:last)).filter_map { |raw| Queues.jid_of(raw) }
      end

      # failure: the WAIT's error reply, if it failed (on a node that became
      # a replica in a failover, the push itself redirected to the new primary).
      def not_replicated(store, acknowledged, jids, failure)
        count = "#{jids.size} job#{"s" unless jids.size == 1}"
        NotReplicated.new("the push of #{count} reached the primary at #{store.location}, but only #{acknowledged} of " \
          "#{@replicas} replicas acknowledged it within #{@timeout} s (push_replicas#{"; WAIT failed: #{failure.message}" if failure}): the jobs are queued " \
          "and will run, but a failover now could lose them; pushing again would queue them twice. " \
          "Check the replicas (INFO replication), or lower push_replicas",
          acknowledged: acknowledged, wanted: @replicas, jids: jids)
      end
    end
  end
end
