# frozen_string_literal: true

require_relative "../../store/key_pages"

module Sidekiq
  # Pages of a sorted set or a list, as Sidekiq's dashboard and the Web
  # extensions that include this module read them (sidekiq-cron's pages,
  # for one). A page is [page number, total size, items]; a sorted set's
  # items come with their scores. Pages count from 1; an index below 1 reads
  # the first.
  #
  #   include Sidekiq::Paginator
  #   page("retry", 2, 25)                      # => [2, 60, [["{...job...}", 1.7e9], ...]]
  #   page("queue:default", 1, 25, reverse: true)
  #   page_items(processes, 1, 10)              # the same for an Array
  module Paginator
    # What each kind of key is, once known (Sidekiq's sets are zsets).
    TYPE_CACHE = {"dead" => "zset", "retry" => "zset", "schedule" => "zset"}

    def page(key, pageidx = 1, page_size = 25, opts = nil)
      current = [pageidx.to_i, 1].max
      first = (current - 1) * page_size
      last = first + page_size - 1
      reverse = opts && opts[:reverse]
      store = Deckhand::Client.via_target&.store || Deckhand.config.store
      case (type = key_type(store, key))
      when "zset" then [current, *Deckhand::Store::KeyPages.zset(store, key, first, last, reverse: reverse)]
      when "list" then [current, *Deckhand::Store::KeyPages.list(store, key, first, last, reverse: reverse)]
      when "none" then [1, 0, []]
      else raise ArgumentError, "Sidekiq::Paginator pages a sorted set or a list; #{key.inspect} is a #{type}"
      end
    end

    def page_items(items, pageidx = 1, page_size = 25)
      current = [pageidx.to_i, 1].max
      page_size = [page_size, 0].max
      items = items.to_a
      first = (current - 1) * page_size
      first, current = 0, 1 if first > items.size
      [current, items.size, items[first, page_size]]
    end

    private

    def key_type(store, key)
      TYPE_CACHE.fetch(key) do
        type = key.start_with?("queue:") ? "list" : Deckhand::Store::KeyPages.type(store, key)
        TYPE_CACHE[key] = type unless type == "none"
        type
      end
    end
  end
end
