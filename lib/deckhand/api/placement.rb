# frozen_string_literal: true

module Deckhand
  class API
    # Which Redis primary holds which queue, and each primary's share of the
    # queues: in cluster mode where each queue's placement put it
    # (docs/cluster.md, "Placement"), in plain mode the one Redis holding
    # them all. Read at one moment; queues are listed by name.
    #
    #   placement = api.placement
    #   placement.primaries.map { |p| [p.address, p.queues, p.share] }
    #   # => [["127.0.0.1:7000", ["bulk", "mail"], 0.333], ["127.0.0.1:7001", ["default", "low"], 0.333], ...]
    #   placement.busiest.share   # => 0.333
    class Placement
      Primary = Struct.new(:address, :queues, :share)

      attr_reader :primaries

      def initialize(config)
        store = config.store
        keys = store.layout
        @cluster = !keys.one_slot?
        holders = @cluster ? keys.placement.report : {store.location => Store::Queues.names(store)}
        total = holders.sum { |_, queues| queues.size }
        @primaries = holders.map do |address, queues|
          Primary.new(address, queues, total.zero? ? 0.0 : (queues.size.to_f / total).round(3))
        end
      end

      # True in cluster mode, where queues spread over several primaries.
      def cluster? = @cluster

      # The primary holding the most queues.
      def busiest = @primaries.max_by { |primary| primary.queues.size }

      def to_h = @primaries.to_h { |primary| [primary.address, {queues: primary.queues, share: primary.share}] }
    end
  end
end
