# frozen_string_literal: true

module Deckhand
  class Store
    # One page of any sorted set or list, by index, with its total: what
    # Sidekiq's Paginator reads for the Web extensions that page their own
    # keys (drop-in mode). Each page is read in one transaction.
    #
    #   KeyPages.type(store, "retry")                         # => "zset"
    #   KeyPages.zset(store, "retry", 0, 24, reverse: false)  # => [60, [["{...}", 1.7e9], ...]]
    #   KeyPages.list(store, "queue:q", 0, 24, reverse: true) # => [3, ["z", "y", "x"]]
    module KeyPages # :nodoc:
      module_function

      def type(store, key) = store.call("TYPE", key)

      def zset(store, key, first, last, reverse:)
        total, items = store.multi do |tx|
          tx.call("ZCARD", key)
          tx.call("ZRANGE", key, first, last, *("REV" if reverse), "WITHSCORES")
        end
        [total, items.flatten.each_slice(2).map { |member, score| [member, Float(score)] }]
      end

      # Newest first when reversed, as a list's left end is its newest.
      def list(store, key, first, last, reverse:)
        total, items = store.multi do |tx|
          tx.call("LLEN", key)
          reverse ? tx.call("LRANGE", key, -last - 1, -first - 1) : tx.call("LRANGE", key, first, last)
        end
        [total, reverse ? items.reverse : items]
      end
    end
  end
end
