# frozen_string_literal: true

require_relative "../throttles"

module Deckhand
  class Store
    module Scripts
      # fetch.lua for one capsule of one process: acknowledges settled jobs and
      # moves up to `limit` jobs from the capsule's sources into the process's
      # in-flight record, one lot per source that had jobs, in one round trip.
      #
      #   fetch = Fetch.new(store, identity: "host:1:abc", queues: %w[critical default])
      #   fetch.call(limit: 20, sources: [[1, 42]], acks: [])
      #   # => [#<struct Take source=0, version=nil, payloads=["{...}", ...]>]
      class Fetch < Script
        lua "fetch", uses: ["lot", "unique", "limit", "throttle"]

        # What one source gave: its index among the sources, the queue's
        # recovery count version (nil when none) and the payloads, in order.
        Take = Struct.new(:source, :version, :payloads)

        def initialize(store, identity:, queues:)
          super(store)
          @identity = identity
          @queues = queues
          @fixed = queues.map { |q| keys.inflight(identity, q) } + queues.map { |q| keys.recoveries(q) } +
            queues.map { |q| keys.landing(identity, q) }
          @lists = queues.map { |q| keys.queue(q) }
        end

        # sources: [queue index, lot id] in the order to drain the queues,
        # each id never used before. acks: [queue index, lot id, bitmap or ""
        # when every job is settled, positions settled by a script] per lot
        # with news. landed: [queue index, payload] of settled jobs an idle
        # waiter had landed and handed out (they leave the landing lists).
        # unlocks: [lock key, jid, TTL ms, queue index] of unique jobs that
        # succeeded (the index routes each in cluster mode, FetchByQueue).
        # throttles: [queue index, Config::Throttle::Limit, slots to give
        # back] per throttled queue (none: the call is the same as without
        # throttling). Returns the takes, and with throttles also the ms until
        # a throttle may let a held-back job leave (0 when none was held back).
        def call(limit:, sources:, acks:, landed: [], unlocks: [], throttles: nil)
          parse(run(*command(limit:, sources:, acks:, landed:, unlocks:, throttles:)), throttles)
        end

        # The KEYS and ARGV of #call (FetchByQueue pipelines several).
        def command(limit:, sources:, acks:, landed: [], unlocks: [], throttles: nil)
          list = @fixed.dup
          sources.each { |index, _| list << @lists[index] }
          sources.each { |index, id| list << lot(index, id) }
          acks.each { |index, id, _| list << lot(index, id) }
          unlocks.each { |key, _| list << key }
          throttles&.each { |index, _| list << keys.throttle(@queues[index]) }
          argv = [@queues.size, limit, sources.size]
          sources.each { |index, id| argv << index + 1 << id }
          argv << acks.size
          acks.each { |index, id, bits, marked| argv.push(index + 1, id, bits, marked.size, *marked) }
          argv << landed.size
          landed.each { |index, payload| argv << index + 1 << payload }
          argv << unlocks.size
          unlocks.each { |_, jid, ttl| argv << jid << ttl }
          if throttles
            argv << @identity << throttles.size
            throttles.each { |index, l, back| argv.push(index + 1, l.rate_per_ms, l.burst, l.concurrency || 0, back) }
          end
          [list, argv]
        end

        # A reply as #call returns it: the takes, with throttles also the wait.
        def parse(reply, throttles)
          return takes(reply) unless throttles
          wait = reply.pop
          [takes(reply), wait]
        end

        private

        def lot(index, id) = keys.lot(@identity, @queues[index], id)

        def takes(reply)
          result = []
          i = 0
          while i < reply.size
            count = reply[i + 2]
            result << Take.new(reply[i] - 1, reply[i + 1], reply[i + 3, count])
            i += 3 + count
          end
          result
        end
      end
    end
  end
end
