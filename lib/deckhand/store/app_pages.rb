# frozen_string_literal: true

module Deckhand
  class Store
    # One page of a sorted set or list an application or plugin keeps
    # under a key of its own (drop-in mode's Sidekiq::Paginator, which Web
    # extensions page their own data with): the key's size and its entries
    # from `start` to `stop` (inclusive), newest first when `reverse`, read
    # in one MULTI after the key's type. A key of another type is refused,
    # naming it.
    #
    #   AppPages.page(store, "failed", 0, 24, reverse: true)   # => [120, [["{...}", 1700000000.0], ...]]
    #   AppPages.page(store, "audit:log", 25, 49)               # => [60, ["{...}", ...]]
    module AppPages # :nodoc:
      module_function

      # [size, entries]: [member, score] pairs for a sorted set, members for
      # a list; [0, []] where the key does not exist.
      def page(store, key, start, stop, reverse: false)
        case (type = store.call("TYPE", key))
        when "zset"
          store.multi do |tx|
            tx.call("ZCARD", key)
            tx.call("ZRANGE", key, start, stop, *("REV" if reverse), "WITHSCORES")
          end.then { |size, pairs| [size, pairs.map { |member, score| [member, Float(score)] }] }
        when "list"
          size, items = store.multi do |tx|
            tx.call("LLEN", key)
            reverse ? tx.call("LRANGE", key, -stop - 1, -start - 1) : tx.call("LRANGE", key, start, stop)
          end
          [size, reverse ? items.reverse : items]
        when "none" then [0, []]
        else raise ArgumentError, "#{key} holds a #{type}: only a sorted set or a list can be paged"
        end
      end
    end
  end
end
