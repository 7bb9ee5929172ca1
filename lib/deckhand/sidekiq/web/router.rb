# frozen_string_literal: true

require "rack"
require_relative "route"

module Sidekiq
  # The routing words a Web extension's `registered(app)` uses on
  # Sidekiq::WebApplication: get, post, put, patch, delete, head, route.
  #
  #   def self.registered(app)
  #     app.get("/cron") { erb(File.read(File.join(VIEWS, "cron.erb"))) }
  #     app.post("/cron/:name/enqueue") { redirect "#{root_path}cron" }
  #   end
  module WebRouter
    GET = "GET"
    DELETE = "DELETE"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"
    HEAD = "HEAD"

    ROUTE_PARAMS = "rack.route_params"
    REQUEST_METHOD = "REQUEST_METHOD"
    PATH_INFO = "PATH_INFO"

    %w[get post put patch delete head].each do |verb|
      define_method(verb) { |path, &block| route(verb.upcase, path, &block) }
    end

    def route(*methods, path, &block)
      methods.each { |method| routes << WebRoute.new(method.to_s.upcase, path, block) }
    end

    def routes = @routes ||= []

    # A WebAction for env's method and path (its route's params in
    # env["rack.route_params"]), or nil when no extension route has them.
    def match(env)
      return nil if routes.empty?
      path = ::Rack::Utils.unescape(env[PATH_INFO].to_s)
      path = "/" if path.empty?
      routes.each do |route|
        params = route.match(env[REQUEST_METHOD], path) or next
        env[ROUTE_PARAMS] = params
        return WebAction.new(env, route.block)
      end
      nil
    rescue ArgumentError # a path that is not valid percent-encoding names no route
      nil
    end
  end
end
