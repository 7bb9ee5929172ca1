# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # fetch.lua for one capsule of one process: acknowledges settled jobs and
      # moves up to `limit` jobs from the capsule's sources into the process's
      # in-flight record, one lot per source that had jobs, in one round trip.
      #
      #   fetch = Fetch.new(store, identity: "host:1:abc", queues: %w[critical default])
      #   fetch.call(limit: 20, last_lot: 41, sources: [[1, :queue]], acks: [])
      #   # => [#<struct Take queue=1, lot=42, version=nil, payloads=["{...}", ...]>]
      class Fetch < Script
        lua "fetch", uses: ["lot"]

        # What one source gave: the queue's index, the lot id, the queue's
        # recovery count version (nil when none) and the payloads, in order.
        Take = Struct.new(:queue, :lot, :version, :payloads)

        def initialize(store, identity:, queues:)
          super(store)
          @queues = queues
          @hashes = queues.map { |q| keys.inflight(identity, q) } + queues.map { |q| keys.recoveries(q) }
          @lists = {
            queue: queues.map { |q| keys.queue(q) },
            landing: queues.map { |q| keys.landing(identity, q) }
          }
        end

        # sources: [queue index, :queue or :landing] in the order to drain
        # them. acks: [queue index, lot id, bitmap or ""], flat. The lot ids
        # last_lot + 1 .. last_lot + sources.size must be reserved for this call.
        def call(limit:, last_lot:, sources:, acks:)
          lists = sources.map { |index, kind| @lists.fetch(kind)[index] }
          argv = [@queues.size, limit, last_lot, sources.size]
          sources.each { |index, _| argv << index + 1 }
          argv << acks.size / 3
          acks.each_slice(3) { |index, lot, bits| argv << index + 1 << lot << bits }
          takes(run(@hashes + lists, argv))
        end

        private

        def takes(reply)
          result = []
          i = 0
          while i < reply.size
            count = reply[i + 3]
            result << Take.new(reply[i] - 1, reply[i + 1], reply[i + 2], reply[i + 4, count])
            i += 4 + count
          end
          result
        end
      end
    end
  end
end
