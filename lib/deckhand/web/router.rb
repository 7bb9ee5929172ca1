# frozen_string_literal: true

module Deckhand
  class Web
    # Maps a method and path to a page action. Segments are split before they
    # are decoded, so a queue named "a/b" (sent as a%2Fb) stays one segment.
    #
    #   Router.new([["GET", "queues/:name", Pages::QueuesPage, :show]]).match("GET", "/queues/mailers")
    #   # => [route, {"name" => "mailers"}]
    class Router
      Route = Struct.new(:verb, :segments, :page, :action)

      # What a path that exists under another method gets.
      WRONG_METHOD = :wrong_method

      SETS = %w[retries scheduled dead].freeze

      def initialize(table)
        @routes = table.map { |verb, pattern, page, action| Route.new(verb, pattern.split("/"), page, action) }
      end

      # [route, params], [WRONG_METHOD, {}], or nil when nothing has this path.
      def match(verb, path_info)
        segments = split(path_info) or return nil
        verb = "GET" if verb == "HEAD"
        other = false
        @routes.each do |route|
          params = capture(route.segments, segments) or next
          return [route, params] if route.verb == verb
          other = true
        end
        other ? [WRONG_METHOD, {}] : nil
      end

      private

      def split(path_info)
        path = path_info.to_s.delete_prefix("/").delete_suffix("/")
        path.split("/", -1).map { |segment| Rack::Utils.unescape_path(segment) }
      rescue ArgumentError
        nil
      end

      def capture(pattern, segments)
        return nil unless pattern.size == segments.size
        params = {}
        pattern.each_with_index do |part, i|
          value = segments[i]
          if part == ":set"
            return nil unless SETS.include?(value)
            params["set"] = value
          elsif part.start_with?(":")
            return nil if value.empty? || !value.valid_encoding?
            params[part[1..]] = value
          elsif part != value
            return nil
          end
        end
        params
      end
    end
  end
end
