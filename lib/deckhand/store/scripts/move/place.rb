# frozen_string_literal: true

module Deckhand
  class Store
    module Scripts
      # Runs place.lua: records the hash tag of a queue's keys, first writer
      # wins (Store::Tags::QueuePlacement chooses it).
      #
      #   Place.new(store).call("mail", "{queue~2:mail}", seen: 5)   # => "{queue~2:mail}", or the tag recorded first
      #   Place.new(store).call("mail", "{queue~2:mail}", seen: 4)   # => nil: a sixth queue was placed meanwhile
      class Place < Script # :nodoc:
        lua "move/place"

        # seen: the number of placements the choice was made on (nil: record
        # it whatever was placed since).
        def call(queue, tag, seen:)
          run([Layout::Cluster::PLACEMENT, Layout::Cluster::QUEUES], [queue, tag, Layout::Cluster.tag(queue), seen || -1])
        end
      end
    end
  end
end
