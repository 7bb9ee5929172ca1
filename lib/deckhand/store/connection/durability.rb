# frozen_string_literal: true

module Deckhand
  class Store
    module Connection
      # Pushes that must survive a failover (opt-in, `config.push_replicas`).
      # Redis replicates asynchronously: a push acknowledged by the primary may
      # not have reached a replica yet, and a failover in that instant promotes
      # a replica without it. With push_replicas set, a push is followed by
      # `WAIT replicas timeout` on the same connection, of the same node that
      # took it (in cluster mode, of every node the push wrote to), and a push
      # fewer replicas acknowledged in time raises NotReplicated: the jobs are
      # in the primary, not yet proven to be anywhere else (docs/cluster.md).
      # It wraps the client's plain push (Store::Jobs::Queues.push, #pipelined) and
      # every push a script writes (#evalsha, through Script#run_durably): unique
      # jobs, a batch's jobs in plain mode, periodic ticks. What a script wrote
      # is waited for on the script's connection (in cluster mode, of the node
      # that ran it: a script touches one slot).
      #
      #   Deckhand.configure { |c| c.push_replicas = 1; c.push_replicas_timeout = 0.5 }
      #   Deckhand::Store::Connection::Durability.pipelined(store, {"a" => [json]}) { |pipe| pipe.call("LPUSH", "queue:a", json) }
      #   # => the pipeline's replies; raises Deckhand::NotReplicated (naming the jids) when WAIT came short
      #   store.durability.evalsha(store, Scripts::UniquePush, keys, argv) { |reply| jids_it_pushed(reply) }
      #   # => the script's reply; raises Deckhand::NotReplicated when WAIT came short and it pushed a job
      class Durability # :nodoc:
        attr_reader :replicas, :timeout

        # The durability a store's pushes wait for, or nil (plain pipelines).
        def self.for(replicas, timeout) = replicas.positive? ? new(replicas: replicas, timeout: timeout) : nil

        # A push pipeline: the store's own, with WAIT appended when its
        # durability is set. queued and scheduled are the payloads it writes
        # (as Store::Jobs::Queues.push takes them), read only for the error's jids.
        def self.pipelined(store, queued = {}, scheduled = [], &block)
          durability = store.durability
          durability ? durability.pipelined(store, queued, scheduled, &block) : store.pipelined(&block)
        end

        # As .pipelined, with the writes' refusals left in the replies (as
        # RedisClient errors): returns the replies and, when fewer replicas
        # than wanted acknowledged, [acknowledged, the WAIT's error or nil].
        def self.replies(store, &block)
          durability = store.durability
          durability ? durability.replies(store, &block) : [store.pipelined(exception: false, &block), nil]
        end

        def initialize(replicas:, timeout:)
          @replicas = replicas
          @timeout = timeout
          freeze
        end

        def pipelined(store, queued = {}, scheduled = [], &block)
          replies, acks = store.cluster? ? Connection::ClusterWait.pipelined(store, command, @timeout, &block) : plain(store, &block)
          short = shortfall(acks)
          raise not_replicated(store, short, jids(queued, scheduled), failure(acks)) if short
          replies
        end

        def replies(store, &block)
          replies, acks = store.cluster? ? Connection::ClusterWait.replies(store, command, @timeout, &block) : plain(store, exception: false, &block)
          short = shortfall(acks)
          [replies, short && [short, failure(acks)]]
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

        # Runs a Store::Script subclass's Lua (as Store#evalsha does, sending
        # the source when Redis lost it), followed on the same connection by
        # WAIT. The block gets the script's reply and returns the jids of the
        # jobs it pushed (it is called only when WAIT came short): raises
        # NotReplicated naming them, unless the script pushed none (a unique
        # job whose lock was held, a tick pushed before). Returns the reply.
        def evalsha(store, script, keys, argv)
          reply, acks = script_round(store, "EVALSHA", script.sha, keys, argv)
          # NOSCRIPT: the script did not run; the WAIT behind it waited for nothing.
          reply, acks = script_round(store, "EVAL", script.source, keys, argv) if reply.is_a?(RedisClient::NoScriptError)
          raise store.refusal(reply, script: script) if reply.is_a?(RedisClient::Error)
          short = shortfall(acks) or return reply
          jids = yield reply
          raise not_replicated(store, short, jids, failure(acks)) unless jids.empty?
          reply
        end

        private

        def command = ["WAIT", @replicas.to_s, (@timeout * 1000).ceil.to_s]

        # How many replicas acknowledged, when fewer than wanted; else nil.
        def shortfall(acks)
          acknowledged = acks.map { |ack| ack.is_a?(Integer) ? ack : 0 }.min
          acknowledged if acknowledged && acknowledged < @replicas
        end

        def failure(acks) = acks.find { |ack| !ack.is_a?(Integer) }

        # Plain mode: the pipeline is one connection, the WAIT follows the writes.
        def plain(store, exception: true)
          replies = store.pipelined(exception: exception) do |pipe|
            yield pipe
            pipe.blocking_call_v(@timeout, command)
          end
          [replies, [replies.pop]]
        end

        # The script's reply (or error reply) and the WAITs' replies: in
        # cluster mode one WAIT, on the node the script ran on.
        def script_round(store, verb, script, keys, argv)
          run = ->(pipe) { pipe.call(verb, script, keys.size, *keys, *argv) }
          replies, acks = store.cluster? ? Connection::ClusterWait.replies(store, command, @timeout, &run) : plain(store, exception: false, &run)
          [replies.first, acks]
        end

        def jids(queued, scheduled)
          (queued.values.flatten + scheduled.each_slice(2).map(&:last)).filter_map { |raw| Jobs::Queues.jid_of(raw) }
        end
      end
    end
  end
end
