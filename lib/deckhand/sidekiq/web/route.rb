# frozen_string_literal: true

module Sidekiq
  # One route a Web extension declared (`app.get "/cron/:name" do ... end`):
  # its method, its pattern and its block. A `:name` segment matches one
  # path segment and is handed to the action as route_params[:name].
  #
  #   route = Sidekiq::WebRoute.new("GET", "/cron/:name", -> {})
  #   route.match("GET", "/cron/nightly")   # => {name: "nightly"}
  #   route.match(:get, "/cron")            # => nil (Sidekiq 8 names the method with a Symbol)
  #   route.matcher                         # => /\A\/cron\/(?<name>[^\/]+)\z/ ("/cron" for a plain path)
  class WebRoute
    # What a path without named segments matches with.
    EMPTY = {}.freeze

    attr_accessor :request_method, :pattern, :block, :name

    def initialize(request_method, pattern, block)
      @request_method = request_method.to_s.upcase
      @pattern = pattern
      @block = block
      @segments = pattern.to_s.split("/", -1)
    end

    # The pattern as Sidekiq 8 compiles it: the path itself when nothing
    # in it is named, else a Regexp capturing each named segment.
    def matcher
      return @pattern.to_s if @segments.none? { |part| named(part) }
      parts = @segments.map do |part|
        key = named(part)
        key ? "#{Regexp.escape(part[0, part.index(":")])}(?<#{key}>[^/]+)" : Regexp.escape(part)
      end
      /\A#{parts.join("/")}\z/
    end

    # The named segments' values (Symbol keys), or nil when path is not this route's.
    def match(request_method, path)
      return nil unless request_method.to_s.upcase == @request_method
      segments = path.split("/", -1)
      return nil unless segments.size == @segments.size
      return EMPTY if @segments == segments
      @segments.zip(segments).each_with_object({}) do |(part, value), params|
        if (key = named(part))
          prefix = part[0, part.index(":")]
          return nil unless value.start_with?(prefix) && value.size > prefix.size
          params[key] = value[prefix.size..]
        elsif part != value
          return nil
        end
      end
    end

    private

    # "x:id" names id after the literal "x"; a segment without ":" names nothing.
    def named(part)
      key = part[/:([^.:$]+)\z/, 1]
      key&.to_sym
    end
  end
end
