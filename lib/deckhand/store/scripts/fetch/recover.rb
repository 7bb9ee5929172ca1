# frozen_string_literal: true

require_relative "../../jobs/queues"
require_relative "recover_queue"

module Deckhand
  class Store
    module Scripts
      # Gives a dead process's unsettled jobs back to the front of their
      # queues, counting recoveries per jid and setting poison pills aside
      # (lib/recover.lua). Reads the dead process's lot ids first, so each
      # script declares every list it touches.
      #
      # Plain mode: one atomic step (recover.lua) that first checks the
      # process is still judged dead. Cluster mode: a queue's keys live in the
      # queue's slot and the process record in the fleet's, so the check is a
      # read of the fleet's slot, then recover_queue.lua runs once per queue,
      # then the process is forgotten. The reaper lock keeps other reapers out
      # meanwhile; a process that beats again in those milliseconds is one
      # whose jobs may run twice, as with any recovery of a live process.
      #
      #   Recover.new(store).call(identity: "host:1:abc", beat: nil, queues: %w[default], limit: 3, ttl: 86_400)
      #   # => [recovered, counted, poisoned], recovered -1 when the process
      #   #    beat again since it was judged (beat: the "beat" field seen then,
      #   #    nil when its record had expired) and -2 when another reaper
      #   #    recovered it first
      class Recover < Script # :nodoc:
        lua "fetch/recover", uses: ["guard", "lot", "throttle", "recover"]

        # The keys of one queue's share, in the order both scripts read them.
        def self.queue_keys(keys, identity, queue)
          [keys.inflight(identity, queue), keys.landing(identity, queue), keys.queue(queue),
            keys.recoveries(queue), keys.suspects(identity, queue), keys.poison(queue), keys.throttle(queue)]
        end

        def call(identity:, beat:, queues:, limit:, ttl:)
          lots = Inflight.lots(@store, identity, queues)
          return by_queue(identity, beat, lots, limit, ttl) unless keys.plain?
          list = [keys.process(identity), keys::OWNERS, keys::QUEUES, keys::PROCESSES]
          queues.each { |q| list.concat(self.class.queue_keys(keys, identity, q)) }
          pairs = []
          lots.each_with_index do |(queue, ids), index|
            ids.each do |id|
              list << keys.lot(identity, queue, id)
              pairs.push(index + 1, id)
            end
          end
          # The names the queues set gets: a partition's queue (Queues.listed).
          run(list, [identity, beat.to_s, limit, ttl, queues.size, *queues.map { |q| Jobs::Queues.listed(keys, q) }, *pairs])
        end

        private

        def by_queue(identity, beat, lots, limit, ttl)
          seen, owner = @store.pipelined do |pipe|
            pipe.call("HGET", keys.process(identity), "beat")
            pipe.call("HEXISTS", keys::OWNERS, identity)
          end
          return [-1, 0, 0] if seen.to_s != beat.to_s
          return [-2, 0, 0] if owner.zero?
          share = RecoverQueue.new(@store)
          totals = [0, 0, 0]
          back = lots.filter_map do |queue, ids|
            counts = share.call(identity, queue, ids, limit: limit, ttl: ttl)
            totals = totals.zip(counts).map(&:sum)
            queue if counts.first.positive? || counts.last.positive? # a pill's poison hash is found by its queue's name
          end
          @store.multi do |tx|
            tx.call("SADD", keys::QUEUES, *back) unless back.empty?
            tx.call("HDEL", keys::OWNERS, identity)
            tx.call("SREM", keys::PROCESSES, identity)
          end
          totals
        end
      end
    end
  end
end
