# frozen_string_literal: true

require "deckhand/store/app_pages"

module Sidekiq
  # Sidekiq's paging helpers, which Web extensions page their own data with
  # (a sorted set or list under a key of theirs, or a list in memory):
  # [current page, total size, the page's items]. In a Web extension's
  # route (Sidekiq::WebAction) and anywhere it is included.
  #
  #   @current_page, @total_size, @failures = page("failed", params["page"], 25, reverse: true)
  #   # @failures: [[json, score], ...], newest first
  #   @current_page, @total_size, @rows = page_items(rows, params["page"], 50)
  module Paginator
    def page(key, pageidx = 1, page_size = 25, opts = nil)
      current = [pageidx.to_i, 1].max
      first = (current - 1) * page_size
      store = Deckhand::Client.current_config.store
      total, items = Deckhand::Store::AppPages.page(store, key, first, first + page_size - 1, reverse: opts&.[](:reverse) || false)
      total.zero? ? [1, 0, []] : [current, total, items]
    end

    def page_items(items, pageidx = 1, page_size = 25)
      current = [pageidx.to_i, 1].max
      all = items.to_a
      [current, all.size, all[(current - 1) * page_size, page_size]]
    end
  end
end
