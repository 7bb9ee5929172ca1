# frozen_string_literal: true

module Deckhand
  class Store
    module Layout
      # The names of a partitioned queue's lists (docs/cluster.md,
      # "Partitioned queues"). Partition 0 is the queue itself, so Sidekiq and
      # processes without the setting still see what is pushed there; partition
      # n > 0 is stored as the queue "<name>~p<n>", which the layout turns into
      # keys like any queue's (`queue:default~p1` in plain mode, a tag of its
      # own placed on the emptiest primary in cluster mode). The suffix is
      # Deckhand's own: a partitioned queue's name may not hold "~", so no
      # queue's partition is another queue.
      #
      #   PartitionNames.name("default", 0)    # => "default"
      #   PartitionNames.name("default", 2)    # => "default~p2"
      #   PartitionNames.base("default~p2")    # => "default"
      #   PartitionNames.list("default", 3)    # => ["default", "default~p1", "default~p2"]
      module PartitionNames # :nodoc:
        SUFFIX = /~p\d+\z/

        module_function

        def name(queue, index) = index.zero? ? queue : "#{queue}~p#{index}"

        def list(queue, count) = Array.new(count) { |index| name(queue, index) }.freeze

        # The queue a list belongs to: the name itself for every queue's own list.
        def base(name) = name.include?("~") ? name.sub(SUFFIX, "") : name

        def partition?(name) = name.include?("~") && SUFFIX.match?(name)
      end
    end
  end
end
