# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # fetch.lua for one capsule of one process: acknowledges settled jobs and
      # moves up to `limit` jobs from the capsule's sources into the process's
      # in-flight record, one lot per source that had jobs, in one round trip.
      #
      #   fetch = Fetch.new(store, identity: "host:1:abc", queues: %w[critical default])
      #   fetch.call(limit: 20, sources: [[1, 42]], acks: [])          # strict: the whole limit
      #   fetch.call(limit: 20, sources: [[0, 43, 15], [1, 44, 5]], acks: []) # weighted shares
      #   # => [#<struct Take source=0, version=nil, payloads=["{...}", ...]>]
      class Fetch < Script # :nodoc:
        lua "fetch/fetch", uses: ["unique", "limit", "throttle", "fetch_parts", "fair"]

        # What one source gave: its index among the sources, the queue's
        # recovery count version (nil when none) and the payloads, in order.
        Take = Struct.new(:source, :version, :payloads)

        # `lost` is FetchByQueue's (cluster mode), told when a later queue's
        # call failed after earlier ones took jobs; one call here takes from
        # every queue or from none, so it is never needed.
        def initialize(store, identity:, queues:, lost: nil)
          super(store)
          @identity = identity
          @queues = queues
          name_keys
        end

        # sources: [queue index, lot id, share, priority level] in the order
        # to drain them, each id never used before (a source with a level is
        # that level's list, docs/priority.md; without, the queue's own list,
        # and a share of nil is the whole limit); each source gives up to its
        # share of the limit first (none given: the whole limit), then the
        # rest of the limit goes to the sources in order. acks: [queue index, lot id, bitmap or ""
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
          list, argv, reads = command(limit:, sources:, acks:, landed:, unlocks:, throttles:)
          replies = reads.empty? ? [run(list, argv)] : run_then(list, argv, reads)
          parse(replies, throttles)
        end

        # The KEYS, ARGV and reads of #call (FetchByQueue pipelines several):
        # the payloads come from the lots' lists, read in the same round trip
        # (fetch.lua files them without passing them through Lua).
        def command(limit:, sources:, acks:, landed: [], unlocks: [], throttles: nil)
          name_keys if @epoch != epoch
          list = @fixed.dup
          sources.each { |index, _, _, level| list << (level ? keys.priority(@queues[index], level) : @lists[index]) }
          lots = sources.map { |index, id| lot(index, id) }
          list.concat(lots)
          acks.each { |index, id, _| list << lot(index, id) }
          unlocks.each { |key, _| list << key }
          throttles&.each { |index, _| list << keys.throttle(@queues[index]) }
          argv = [@queues.size, limit, sources.size]
          sources.each { |index, id, share, level| argv << (level ? -index - 1 : index + 1) << id << (share || limit) }
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
          [list, argv, limit.positive? ? lots.map { |key| ["LRANGE", key, 0, -1] } : []]
        end

        # Replies as #call returns them ([the script's reply, *each lot's
        # payloads]): the takes, with throttles also the wait.
        def parse(replies, throttles)
          reply, *filed = replies
          return takes(reply, filed) unless throttles
          wait = reply.pop
          [takes(reply, filed), wait]
        end

        private

        def lot(index, id) = keys.lot(@identity, @queues[index], id)

        # The keys every call names, named again when a queue moved to
        # another shard (the placement epoch changed, Store::Tags::QueueMove).
        def name_keys
          @epoch = epoch
          @fixed = @queues.map { |q| keys.inflight(@identity, q) } + @queues.map { |q| keys.recoveries(q) } +
            @queues.map { |q| keys.landing(@identity, q) } + @queues.map { |q| keys.fair_jobs(q) } + @queues.map { |q| keys.fair_tenants(q) }
          @lists = @queues.map { |q| keys.queue(q) }
        end

        def epoch = keys.respond_to?(:placement) ? keys.placement.epoch : nil

        # The reply holds [source, version, count] per source that gave jobs;
        # the lot's list holds its payloads (fewer than count only if another
        # process's reaper took the lot back between the two, and then they
        # are back in their queue).
        def takes(reply, filed)
          result = []
          i = 0
          while i < reply.size
            result << Take.new(reply[i] - 1, reply[i + 1], filed[reply[i] - 1])
            i += 3
          end
          result
        end
      end
    end
  end
end
