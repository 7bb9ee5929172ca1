# frozen_string_literal: true

require "erb"

module Deckhand
  class Web
    module Helpers
      # Paths under wherever the dashboard is mounted, with every segment and
      # query value percent-encoded.
      #
      #   path("queues", "my queue")             # => "/deckhand/queues/my%20queue"
      #   path("retries", page: 2, q: "Timeout") # => "/deckhand/retries?page=2&q=Timeout"
      module Links
        def path(*segments, **query)
          base = "#{script_name}/#{segments.map { |s| ERB::Util.url_encode(s.to_s) }.join("/")}"
          query = query.reject { |_, v| v.nil? || v == "" }
          query.empty? ? base : "#{base}?#{query.map { |k, v| "#{k}=#{ERB::Util.url_encode(v.to_s)}" }.join("&")}"
        end

        def asset_path(name) = "#{script_name}/assets/#{name}?v=#{Assets.digest(name)}"

        def csrf_field = html(%(<input type="hidden" name="_csrf" value="#{h(csrf_token)}">))

        def current?(section) = (section == @section) ? "current" : nil

        # The shard switcher (Web::ShardRouter): [[name, href, current?], ...], each
        # to the same section on that shard; none with one Redis.
        def shard_links
          shards = @web.shards
          return [] unless shards && shards.size > 1
          section = (@section && @section != "dashboard") ? ERB::Util.url_encode(@section) : ""
          shards.names.map { |name| [name, "#{Web.mount(request)}/#{ShardRouter::PREFIX}/#{ShardRouter.segment(name)}/#{section}", name == @web.shard] }
        end

        # Pages around the current one, for a pager: [[label, page or nil], ...].
        def pager(page, pages)
          return [] if pages <= 1
          around = ([1, page - 2].max..[pages, page + 2].min).to_a
          list = around.map { |n| [n.to_s, n] }
          list.unshift(["…", nil]) if around.first > 2
          list.unshift(["1", 1]) if around.first > 1
          list.push(["…", nil]) if around.last < pages - 1
          list.push([pages.to_s, pages]) if around.last < pages
          list
        end
      end
    end
  end
end
