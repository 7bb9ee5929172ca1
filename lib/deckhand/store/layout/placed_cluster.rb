# frozen_string_literal: true

require_relative "cluster"

module Deckhand
  class Store
    module Layout
      # A cluster store's layout: Layout::Cluster's names and constants, each
      # queue's keys under the tag its placement recorded (Store::Tags::QueuePlacement),
      # so queues spread evenly over the primaries. It is a module, like
      # Layout::Plain and Layout::Cluster, so `store.layout::QUEUES` and
      # `store.layout.queue(name)` read the same in both modes.
      #
      #   layout = Deckhand::Store::Layout::PlacedCluster.new(Deckhand::Store::Tags::QueuePlacement.new(store))
      #   layout.queue("mail")      # => "{queue~2:mail}" (placed on the emptiest primary)
      #   layout.retry_set("mail")  # => "{queue~2:mail}:retry"
      #   layout::QUEUES            # => "{deckhand}:queues"
      class PlacedCluster < Module # :nodoc:
        attr_reader :placement

        def initialize(placement)
          super()
          @placement = placement
          include Cluster # its constants: layout::QUEUES
          extend Cluster::Names
        end

        # The tag every key of `queue` carries: recorded once, for good.
        def tag(queue) = @placement.tag(queue)

        def place(queues) = @placement.tags(queues)

        def inspect = "#<#{self.class.name}>"
      end
    end
  end
end
