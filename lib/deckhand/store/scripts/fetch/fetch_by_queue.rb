# frozen_string_literal: true

require_relative "fetch"

module Deckhand
  class Store
    module Scripts
      # fetch.lua in cluster mode, where one script call may only touch one
      # queue's slot: the same contract as Fetch#call, carried out with one
      # call per queue. The first round trip pipelines the first source's
      # fetch with the news (acknowledgements, landed jobs, unique locks,
      # throttle slots) of every other queue, each node getting its part at
      # once; while the limit is not filled, the next sources are asked in
      # drain order, one round trip each, so strict and weighted order hold.
      # Each source asks for its share of the limit and what the sources
      # before it left of theirs.
      #
      #   fetch = FetchByQueue.new(store, identity: "host:1:abc", queues: %w[critical default])
      #   fetch.call(limit: 20, sources: [[0, 42], [1, 43]], acks: [])
      #   # => [#<struct Fetch::Take source=1, version=nil, payloads=["{...}", ...]>]
      #
      # Each call refuses to refill a lot (the lost-reply guard) as in plain
      # mode. When the first round trip fails, nothing of it counts (the
      # error is raised: the caller hands back every source's lot and sends
      # its news again). When a later one fails, the first one's news and
      # every take so far stand: the failed source goes to `lost` (with the
      # error), to be handed back once Redis answers, and the call returns
      # what it took; without `lost` the error is raised.
      class FetchByQueue # :nodoc:
        # What one queue's call carries besides its source: its news, sent
        # once, and its throttle (every call of a throttled queue asks it how
        # many jobs may leave; the slots to give back go with the first).
        News = Struct.new(:acks, :landed, :unlocks, :throttle) do
          def due? = !(acks.empty? && landed.empty? && unlocks.empty?) || (throttle && throttle[2].positive?)

          def sent!
            self.acks = self.landed = self.unlocks = []
            throttle[2] = 0 if throttle
          end
        end

        def initialize(store, identity:, queues:, lost: nil)
          @store = store
          @lost = lost
          @parts = queues.map { |queue| Fetch.new(store, identity: identity, queues: [queue]) }
        end

        def call(limit:, sources:, acks:, landed: [], unlocks: [], throttles: nil)
          news = news(acks, landed, unlocks, throttles)
          order = sources.each_with_index.map { |(index, id, share, level), position| [index, id, position, share || limit, level] }
          first = order.shift if limit.positive?
          calls = []
          calls << [first, command(news, first, [first[3].abs, limit].min)] if first
          news.each_with_index do |part, index|
            calls << [[index], command(news, [index], 0)] if part.due? && index != first&.first
          end
          takes = []
          waits = []
          replies = calls.empty? ? [] : @store.evalsha_many(Fetch, calls.map(&:last))
          asked = limit
          calls.zip(replies).each { |(source, _), reply| limit -= collect(news, source, reply, takes, waits) }
          carried = first ? [first[3] - (asked - limit), 0].max : 0 # what the first source left of its share
          while limit.positive? && (source = order.shift)
            # A negative share is a hard limit (Balance::CappedBuffer): nothing carried to or from it.
            hard = source[3].negative?
            want = [hard ? -source[3] : source[3] + carried, limit].min
            reply = ask(news, source, want) or break
            took = collect(news, source, reply, takes, waits)
            carried = want - took unless hard
            limit -= took
          end
          throttles ? [takes, waits.select(&:positive?).min || 0] : takes
        end

        private

        # One later source's round trip; nil when it failed and went to `lost`.
        def ask(news, source, limit)
          list, argv, reads = command(news, source, limit)
          reads.empty? ? [@store.evalsha(Fetch, list, argv)] : @store.evalsha_then(Fetch, list, argv, reads)
        rescue Deckhand::RedisError => e
          raise unless @lost
          @lost.call([source.first(2)], e)
          nil
        end

        def news(acks, landed, unlocks, throttles)
          news = Array.new(@parts.size) { News.new([], [], [], nil) }
          acks.each { |index, *rest| news[index].acks << [0, *rest] }
          landed.each { |index, payload| news[index].landed << [0, payload] }
          unlocks.each { |key, jid, ttl, index| news[index].unlocks << [key, jid, ttl] }
          throttles&.each { |index, limit, back| news[index].throttle = [0, limit, back] }
          news
        end

        # source: [queue index, lot id (none for news alone), place among the
        # sources, share, priority level].
        def command(news, source, limit)
          index, id, _, _, level = source
          part = news[index]
          @parts[index].command(limit: limit, sources: id ? [[0, id, nil, level]] : [], acks: part.acks, landed: part.landed,
            unlocks: part.unlocks, throttles: part.throttle && [part.throttle.dup])
        end

        # Files a reply's takes under the source's place among all sources;
        # returns how many jobs it took.
        def collect(news, source, reply, takes, waits)
          index, _, position = source
          throttled = !news[index].throttle.nil?
          news[index].sent!
          found = @parts[index].parse(reply, throttled)
          if throttled
            found, wait = found
            waits << wait
          end
          found.each { |take| takes << Fetch::Take.new(position, take.version, take.payloads) }
          found.sum { |take| take.payloads.size }
        end
      end
    end
  end
end
