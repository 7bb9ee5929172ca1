# frozen_string_literal: true

begin
  require "rack"
rescue LoadError => e
  raise LoadError, "Deckhand::Web needs the rack gem: add `gem \"rack\"` to your Gemfile " \
    "(Rails applications already have it)", cause: e
end
require_relative "api"
require_relative "web/template"
require_relative "web/headers"
require_relative "web/guard"
require_relative "web/flash"
require_relative "web/assets"
require_relative "web/router"
require_relative "web/shards"
require_relative "web/action"
require_relative "web/pages/dashboard"
require_relative "web/pages/busy"
require_relative "web/pages/queues"
require_relative "web/pages/job_sets"
require_relative "web/pages/metrics"
require_relative "web/pages/prometheus"
require_relative "web/pages/batches"
require_relative "web/pages/periodic"
require_relative "web/pages/limits"
require_relative "web/pages/find"
require_relative "web/pages/unreachable"

module Deckhand
  # The dashboard, a Rack app. Standalone (config.ru):
  #
  #   require "deckhand/web"
  #   run Deckhand::Web
  #
  # In Rails (config/routes.rb), behind the application's own authentication:
  #
  #   require "deckhand/web"
  #   authenticate :user, ->(user) { user.admin? } do
  #     mount Deckhand::Web => "/deckhand"
  #   end
  #
  # Read-only users: state changes (retry, delete, pause, quiet, ...) need the
  # hook to return true; without it everyone who can see the pages can act.
  #
  #   Deckhand::Web.authorize { |env| env["warden"].user.admin? }
  #
  # Several Redis servers (client-side sharding, docs/sharding.md): the
  # first opens at the mount point, a switcher in the header reaches the others.
  #
  #   Deckhand::Web.shards = {"main" => Deckhand.config, "eu" => ENV["EU_REDIS_URL"]}
  class Web
    ROUTES = [
      ["GET", "", Pages::Dashboard, :show],
      ["GET", "stats.json", Pages::Dashboard, :stats],
      ["GET", "busy", Pages::Busy, :show],
      ["POST", "busy", Pages::Busy, :act],
      ["GET", "queues", Pages::Queues, :index],
      ["GET", "queues/:name", Pages::Queues, :show],
      ["POST", "queues/:name", Pages::Queues, :act],
      ["GET", "metrics", Pages::Prometheus, :show], # HTML for browsers, exposition for Prometheus
      ["GET", "metrics/:klass", Pages::Metrics, :show],
      ["GET", "limits", Pages::Limits, :index], ["POST", "limits", Pages::Limits, :act],
      ["GET", "batches", Pages::Batches, :index],
      ["GET", "batches/:bid", Pages::Batches, :show],
      ["GET", "batches/:bid/jobs/:jid", Pages::Batches, :find],
      *Pages::Periodic::ROUTES,
      ["GET", "find", Pages::Find, :show],
      ["GET", ":set", Pages::JobSets, :index],
      ["POST", ":set", Pages::JobSets, :bulk],
      ["GET", ":set/:key", Pages::JobSets, :show],
      ["POST", ":set/:key", Pages::JobSets, :act]
    ].freeze

    class << self
      def call(env) = app.call(env)

      def app = @app ||= new

      # The Deckhand::Config whose Redis the dashboard reads (default: Deckhand.config).
      attr_writer :config

      def config = @config || Deckhand.config

      # The Redis servers the dashboard switches between (Web::Shards): a
      # Hash of names to a Config, Store, options Hash or URL; nil for one.
      def shards=(map)
        @shards = Shards.build(map)
      end

      attr_reader :shards

      # Where the dashboard is mounted, whichever shard a request is on.
      def mount(request) = request.env[Shards::MOUNT] || request.script_name

      # Called with the Rack env of each request that would change state; a
      # falsy answer refuses it (403) and hides the buttons. Without a block,
      # removes the hook.
      def authorize(&block)
        @authorizer = block
      end

      attr_reader :authorizer

      def csrf_cookie(request) = request.cookies[Guard::COOKIE]

      # HttpOnly and SameSite=Strict: no other site's page can send it along.
      def set_csrf_cookie(headers, request, token)
        return if request.cookies[Guard::COOKIE] == token
        cookie = "#{Guard::COOKIE}=#{token}; path=#{mount(request).delete(";,")}/; HttpOnly; SameSite=Strict"
        cookie += "; Secure" if request.ssl?
        Flash.add(headers, cookie)
      end
    end

    def initialize(config: nil, authorize: nil, shards: nil)
      @config = config
      @authorizer = authorize
      @shards = Shards.build(shards)
      @router = Router.new(ROUTES)
    end

    def config = @config || self.class.config

    def shards = @shards || self.class.shards

    # The shard's name on a shard's pages (Shards::View); none here.
    def shard = nil

    def authorized?(env)
      hook = @authorizer || self.class.authorizer
      hook.nil? || !!hook.call(env)
    end

    def call(env)
      env, web = shards ? shards.enter(self, env) : [env, self]
      return refuse("No such shard") unless web
      request = Rack::Request.new(env)
      verb = request.request_method
      return asset(request) if %w[GET HEAD].include?(verb) && request.path_info.start_with?("/assets/")
      route, params = @router.match(verb, request.path_info)
      return refuse("Not found") if route.nil?
      return refuse("State changes need a same-origin POST", 403) if route == Router::WRONG_METHOD || !%w[GET HEAD POST].include?(verb)
      if verb == "POST"
        return refuse("Cross-site request refused", 403) unless Guard.new(request, self.class.csrf_cookie(request)).allowed?
        return refuse("You may look but not change anything here", 403) unless authorized?(env)
      end
      status, headers, body = route.page.new(web, request, params).public_send(route.action)
      [status, headers, (verb == "HEAD") ? [] : body]
    rescue Deckhand::RedisError => e
      Pages::Unreachable.new(web, request, {}).show(e)
    end

    private

    def asset(request)
      Assets.response(request.path_info.delete_prefix("/assets/")) || refuse("Not found")
    end

    def refuse(message, status = 404)
      [status, Headers.text(SecureRandom.base64(16)), [message]]
    end
  end
end
