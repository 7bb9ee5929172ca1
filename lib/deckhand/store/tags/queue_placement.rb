# frozen_string_literal: true

require_relative "../layout/cluster"
require_relative "queue_placement/slots"
require_relative "queue_placement/moves"
require_relative "queue_placement/rebalance"
require_relative "../scripts/move/place"

module Deckhand
  class Store
    module Tags
      # Cluster mode: which hash tag each queue's keys carry, so queues spread
      # evenly over the primaries instead of where the CRC16 of their names
      # happens to fall (docs/cluster.md, "Placement"). A queue's tag is chosen
      # once, by the first process that names the queue, and recorded in
      # `{deckhand}:placement` (queue => tag) by place.lua, first writer wins,
      # so every client and server agrees; each process then keeps it in
      # memory for good: a push to a known queue costs nothing more.
      #
      # A new queue takes the first of `{queue:<name>}`, `{queue~1:<name>}`,
      # `{queue~2:<name>}`... whose slot is on the primary holding the fewest
      # queues. A queue that existed before (listed in `{deckhand}:queues`, or
      # with jobs under its unplaced tag) is recorded where it is,
      # `{queue:<name>}`: no data moves. The `~n` goes before the colon so no
      # candidate of one queue can be another queue's tag.
      #
      #   placement = Deckhand::Store::Tags::QueuePlacement.new(store)
      #   placement.tag("mail")        # => "{queue~2:mail}", read or chosen on first use, then from memory
      #   placement.tags(%w[a b c])    # settles several in one round trip
      #   placement.report             # => {"127.0.0.1:7000" => ["a", "mail"], ...}
      class QueuePlacement # :nodoc:
        KEY = Layout::Cluster::PLACEMENT

        # Candidates tried for a new queue; with N primaries about N are needed.
        CANDIDATES = 256

        # Choices spoiled by another queue placed meanwhile before the next
        # one is recorded regardless of the balance. Each refusal means another
        # queue was recorded, so n processes placing n new queues at once are
        # refused n - 1 times at most: the bound only stops a process that
        # keeps meeting new queues (thousands made on the fly) from waiting on
        # them for good. 5 let the sixth of six queues placed at once land
        # where the balance no longer wanted it.
        ATTEMPTS = 32

        # Seconds a pushing process trusts its tags before it asks whether a
        # queue moved (one GET of the placement epoch; servers learn it from
        # their heartbeat). A move waits longer than this before it retires
        # the old tag (Store::Tags::QueueMove).
        REFRESH = 2.0

        def initialize(store)
          @store = store
          @tags = {}.freeze # replaced whole, never changed: readers need no lock
          @lock = Mutex.new
          @epoch = nil
          @checked_at = -Float::INFINITY
        end

        # The placement epoch this process's tags are as of (nil: not read yet).
        attr_reader :epoch

        # A queue moved when the epoch changed (Store::Tags::QueueMove): read every
        # placement again, in one round trip, and keep the new tags. Called
        # outside any pipeline, so #tag stays a read of memory.
        def follow(epoch)
          epoch = epoch.to_i
          return if epoch == @epoch
          placed = @store.call("HGETALL", KEY)
          @lock.synchronize do
            @tags = @tags.to_h { |key, tag| [key, placed[key.to_s]&.freeze || tag] }.freeze
            @epoch = epoch
          end
        end

        # The hash tag of `queue`'s keys.
        def tag(queue) = @tags[queue] || resolve(queue)

        # Settles the tags of `queues`: those recorded in one round trip, the
        # rest one by one.
        def tags(queues)
          refresh
          return if queues.all? { |queue| @tags[queue] }
          names = queues.map { |queue| Layout::Cluster.valid_name(queue) }.uniq.reject { |name| @tags[name] }
          return if names.empty?
          found = @store.call("HMGET", KEY, *names)
          @lock.synchronize { names.zip(found).each { |name, tag| remember(name, tag) if tag } }
          names.each { |name| tag(name) }
          nil
        end

        # Every primary serving slots ("host:port") => the queues whose tag is
        # in its slots (recorded ones by their tag, the others where their
        # unplaced tag falls), sorted; "unserved" while a slot has no primary.
        def report
          placed, queues = read_fleet
          slots = Tags::QueuePlacement::Slots.read(@store)
          holders = slots.primaries.to_h { |primary| [primary, []] }
          (queues | placed.keys).sort.each do |queue|
            tag = placed[queue] || unplaced(queue) or next
            (holders[slots.primary_of(tag) || "unserved"] ||= []) << queue
          end
          holders
        end

        private

        # A pushing process asks for the epoch at most every REFRESH seconds.
        def refresh
          now = Monotonic.now
          return if now - @checked_at < REFRESH
          @checked_at = now
          follow(@store.call("GET", Tags::QueuePlacement::Moves::EPOCH))
        end

        def resolve(queue)
          name = Layout::Cluster.valid_name(queue)
          @lock.synchronize do
            tag = @tags[name] || @store.call("HGET", KEY, name) || place(name)
            remember(name, tag)
            remember(queue, tag) unless queue.is_a?(String)
            tag
          end
        end

        def remember(key, tag) = (@tags = @tags.merge(key => tag.freeze).freeze)

        # Chooses a tag and records it. place.lua keeps a recorded tag, keeps a
        # queue listed in the queues set where it is, and refuses a choice made
        # before another queue was placed (the count it was made on changed),
        # so two processes placing two new queues at once do not pick the same
        # primary; after ATTEMPTS refusals the last choice stands.
        def place(name)
          script = Scripts::Place.new(@store)
          attempt = 0
          loop do
            placed, queues, existing = read(name)
            return placed[name] if placed[name]
            tag = (queues.include?(name) || existing) ? Layout::Cluster.tag(name) : choose(name, placed, queues)
            attempt += 1
            recorded = script.call(name, tag, seen: (attempt < ATTEMPTS) ? placed.size : nil)
            return recorded if recorded
          end
        end

        # The recorded placements, the queues set, and whether the queue has
        # keys under its unplaced tag (created before placement, by a process
        # that did not place it).
        def read(name)
          unplaced = Layout::Cluster # the names without a placement
          placed, queues, existing = @store.pipelined do |pipe|
            pipe.call("HGETALL", KEY)
            pipe.call("SMEMBERS", Layout::Cluster::QUEUES)
            pipe.call("EXISTS", unplaced.queue(name), unplaced.scheduled_set(name), unplaced.retry_set(name), unplaced.dead_set(name))
          end
          [placed, queues, existing.positive?]
        end

        def read_fleet
          @store.pipelined do |pipe|
            pipe.call("HGETALL", KEY)
            pipe.call("SMEMBERS", Layout::Cluster::QUEUES)
          end
        end

        # The first candidate on a primary holding the fewest queues.
        def choose(name, placed, queues)
          slots = Tags::QueuePlacement::Slots.read(@store)
          counts = slots.primaries.to_h { |primary| [primary, 0] }
          (queues | placed.keys).each do |queue|
            next if queue == name
            tag = placed[queue] || unplaced(queue) or next
            primary = slots.primary_of(tag)
            counts[primary] += 1 if counts.key?(primary)
          end
          fewest = counts.values.min
          candidates = (0...CANDIDATES).map { |n| Layout::Cluster.candidate(name, n) }
          candidates.find { |tag| counts[slots.primary_of(tag)] == fewest } ||
            candidates.min_by { |tag| counts.fetch(slots.primary_of(tag), Float::INFINITY) }
        end

        # A listed queue's tag without a placement, or nil for a name that
        # cannot have one (it was never pushed in cluster mode).
        def unplaced(queue)
          Layout::Cluster.tag(queue)
        rescue ConfigError
          nil
        end
      end
    end
  end
end
