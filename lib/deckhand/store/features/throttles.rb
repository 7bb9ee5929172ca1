# frozen_string_literal: true

require "json"
require_relative "../json_object"

module Deckhand
  class Store
    module Features
      # Queue throttles in Redis: the limits changed at run time (they override
      # the configuration's, fleet-wide, from the next heartbeat of each
      # process) and each throttled queue's state, which fetch.lua keeps (see
      # store/scripts/lib/throttle.lua).
      #
      #   deckhand:throttles          hash: queue => JSON limits ({"rate":20,"per":1}), or "{}" for none
      #   deckhand:throttle:<queue>   hash: t, at (rate tokens), ~held, <identity> (slots held)
      #                               (keys.throttle; {queue:<queue>}:throttle in cluster mode,
      #                               in the queue's slot, as fetch.lua uses it with the queue)
      #
      #   Throttles.set(store, "exports", {"concurrency" => 3})
      #   Throttles.overrides(store)        # => {"exports" => {"concurrency" => 3}}
      #   Throttles.usage(store, "exports") # => {held: 2, tokens: nil}
      #   Throttles.held(store, ["exports"]) # => {"exports" => 2}
      #   Throttles.held(store, ["default"], lists: config.partitions.method(:names)) # a partitioned queue's, added up
      module Throttles # :nodoc:
        SETTINGS = Layout::Untagged::THROTTLES

        module_function

        # limits: a Hash of rate/per/concurrency; {} means "not throttled",
        # whatever the configuration says.
        def set(store, queue, limits) = store.call("HSET", SETTINGS, queue, JSON.generate(limits))

        # Back to what each process's configuration says.
        def reset(store, queue) = store.call("HDEL", SETTINGS, queue)

        # queue => limits Hash (string keys), entries that do not parse left out.
        def overrides(store) = parse(store.call("HGETALL", SETTINGS))

        def parse(flat)
          flat.to_h.filter_map { |queue, json| (limits = JsonObject.parse(json)) && [queue, limits] }.to_h
        end

        # Slots held across the fleet for each queue, in one round trip:
        # {queue => held} (a list page shows every throttled queue's). `lists`
        # gives a queue's lists (Config::Partitions#names): a partitioned
        # queue's partitions each hold a share, added up.
        def held(store, queues, lists: ->(queue) { [queue] })
          return {} if queues.empty?
          names = queues.to_h { |queue| [queue, lists.call(queue)] }
          store.layout.place(names.values.flatten)
          replies = store.pipelined { |pipe| names.each_value { |list| list.each { |name| pipe.call("HGET", store.layout.throttle(name), "~held") } } }
          names.transform_values { |list| replies.shift(list.size).sum(&:to_i) }
        end

        # What a throttled queue uses now, over its `lists` (a partitioned
        # queue's partitions): slots held across the fleet, and the rate's
        # tokens as last counted (nil when never paced).
        def usage(store, queue, lists: [queue])
          store.layout.place(lists)
          replies = store.pipelined { |pipe| lists.each { |name| pipe.call("HMGET", store.layout.throttle(name), "~held", "t") } }
          tokens = replies.filter_map { |_, counted| counted&.to_f }
          {held: replies.sum { |held, _| held.to_i }, tokens: tokens.empty? ? nil : tokens.sum}
        end
      end
    end
  end
end
