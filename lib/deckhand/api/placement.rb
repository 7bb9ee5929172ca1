# frozen_string_literal: true

module Deckhand
  class API
    # Which Redis primary holds which queue, and each primary's share of the
    # queues: in cluster mode where each queue's placement put it
    # (docs/cluster.md, "Placement"), in plain mode the one Redis holding
    # them all. Read at one moment; queues are listed by name. Each
    # partition of a partitioned queue ("default~p1") is placed, and listed,
    # like a queue of its own; #spread says where one queue's partitions are.
    #
    #   placement = api.placement
    #   placement.primaries.map { |p| [p.address, p.queues, p.share] }
    #   # => [["127.0.0.1:7000", ["bulk", "mail"], 0.333], ["127.0.0.1:7001", ["default", "low"], 0.333], ...]
    #   placement.busiest.share   # => 0.333
    #   placement.primary_of("default~p1")   # => "127.0.0.1:7002"
    #   placement.spread(api.queue("default").partitions.map(&:name))
    #   # => {"127.0.0.1:7000" => 2, "127.0.0.1:7001" => 2, "127.0.0.1:7002" => 2}
    class Placement
      # One primary of the cluster: its address, the queues placed on it, and its share of them.
      Primary = Struct.new(:address, :queues, :share)

      attr_reader :primaries

      def initialize(config)
        store = config.store
        keys = store.layout
        @cluster = !keys.plain?
        holders = @cluster ? keys.placement.report : {store.location => Store::Jobs::Queues.names(store)}
        total = holders.sum { |_, queues| queues.size }
        @primaries = holders.map do |address, queues|
          Primary.new(address, queues, total.zero? ? 0.0 : (queues.size.to_f / total).round(3))
        end
        @holder = @primaries.each_with_object({}) { |primary, map| primary.queues.each { |queue| map[queue] = primary.address } }
      end

      # The primary ("host:port") holding `list`, a queue or one partition of
      # one; nil for a list no process has pushed to yet (it has no place).
      def primary_of(list) = @holder[list]

      # How many of `lists` (one queue's partitions) each primary holds,
      # most first: {"host:port" => count}. Lists not placed yet are left out.
      def spread(lists)
        lists.filter_map { |list| primary_of(list) }.tally.sort_by { |address, count| [-count, address] }.to_h
      end

      # True in cluster mode, where queues spread over several primaries.
      def cluster? = @cluster

      # The primary holding the most queues.
      def busiest = @primaries.max_by { |primary| primary.queues.size }

      # address => {queues:, share:}, for JSON.
      def to_h = @primaries.to_h { |primary| [primary.address, {queues: primary.queues, share: primary.share}] }
    end
  end
end
