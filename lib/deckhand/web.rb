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
require_relative "web/shard_router"
require_relative "web/action"
require_relative "web/pages/dashboard_page"
require_relative "web/pages/busy_page"
require_relative "web/pages/queues_page"
require_relative "web/pages/job_sets_page"
require_relative "web/pages/metrics_page"
require_relative "web/pages/prometheus_page"
require_relative "web/pages/batches_page"
require_relative "web/pages/workflows_page"
require_relative "web/pages/periodic_page"
require_relative "web/pages/limits_page"
require_relative "web/pages/find_page"
require_relative "web/pages/unreachable_page"
require_relative "web/pages/extension_page"
require_relative "web/pages/profiles_page"

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
    # Firefox Profiler's store and viewer, for Web.profile_viewer.
    FIREFOX_PROFILER = {store_url: "https://api.profiler.firefox.com/compressed-store",
                        view_url: "https://profiler.firefox.com/public/%s"}.freeze

    # Each page's method, path, page class and action.
    ROUTES = [
      ["GET", "", Pages::DashboardPage, :show],
      ["GET", "stats.json", Pages::DashboardPage, :stats],
      ["GET", "busy", Pages::BusyPage, :show],
      ["POST", "busy", Pages::BusyPage, :act],
      ["GET", "queues", Pages::QueuesPage, :index],
      ["GET", "queues/:name", Pages::QueuesPage, :show],
      ["POST", "queues/:name", Pages::QueuesPage, :act],
      ["POST", "queues", Pages::QueuesPage, :classes],
      ["GET", "metrics", Pages::PrometheusPage, :show], # HTML for browsers, exposition for Prometheus
      ["GET", "metrics/:klass", Pages::MetricsPage, :show],
      ["GET", "limits", Pages::LimitsPage, :index], ["POST", "limits", Pages::LimitsPage, :act],
      ["GET", "batches", Pages::BatchesPage, :index],
      ["GET", "batches/:bid", Pages::BatchesPage, :show],
      ["GET", "batches/:bid/jobs/:jid", Pages::BatchesPage, :find],
      *Pages::WorkflowsPage::ROUTES,
      *Pages::PeriodicPage::ROUTES,
      ["GET", "find", Pages::FindPage, :show],
      ["GET", "profiles", Pages::ProfilesPage, :index],
      ["GET", "profiles/:key", Pages::ProfilesPage, :view],
      ["GET", "profiles/:key/data", Pages::ProfilesPage, :data],
      ["GET", ":set", Pages::JobSetsPage, :index],
      ["POST", ":set", Pages::JobSetsPage, :bulk],
      ["GET", ":set/:key", Pages::JobSetsPage, :show],
      ["POST", ":set/:key", Pages::JobSetsPage, :act]
    ].freeze

    class << self
      # Serves a request with the dashboard of the class's settings (`run Deckhand::Web`).
      def call(env) = app.call(env)

      # The dashboard the class's settings make.
      def app = @app ||= new

      # The Deckhand::Config whose Redis the dashboard reads (default: Deckhand.config).
      attr_writer :config

      # The configuration whose Redis the dashboard reads.
      def config = @config || Deckhand.config

      # The Redis servers the dashboard switches between (Web::ShardRouter): a
      # Hash of names to a Config, Store, options Hash or URL; nil for one.
      def shards=(map)
        @shards = ShardRouter.build(map)
      end

      attr_reader :shards

      # Where the dashboard is mounted, whichever shard a request is on.
      def mount(request) = request.env[ShardRouter::MOUNT] || request.script_name

      # Called with the Rack env of each request that would change state; a
      # falsy answer refuses it (403) and hides the buttons. Without a block,
      # removes the hook.
      def authorize(&block)
        @authorizer = block
      end

      attr_reader :authorizer

      # Where View sends a profile (docs/profiling.md): {store_url:, view_url:}
      # (view_url with %s for the viewer's id), as Firefox Profiler's
      # FIREFOX_PROFILER; nil (the default) offers the download only.
      attr_accessor :profile_viewer

      # The request's CSRF cookie, or nil.
      def csrf_cookie(request) = request.cookies[Guard::COOKIE]

      # HttpOnly and SameSite=Strict: no other site's page can send it along.
      def set_csrf_cookie(headers, request, token)
        return if request.cookies[Guard::COOKIE] == token
        cookie = "#{Guard::COOKIE}=#{token}; path=#{mount(request).delete(";,")}/; HttpOnly; SameSite=Strict"
        cookie += "; Secure" if request.ssl?
        Flash.add(headers, cookie)
      end
    end

    # extension: what a host adds to the pages (drop-in mode's
    # Sidekiq::Web tabs and job rows), an object answering `tabs(request)`
    # ([[label, href], ...]) and `job_rows(entry, set)` ([[name, html], ...]).
    def initialize(config: nil, authorize: nil, shards: nil, extension: nil, profile_viewer: nil)
      @config = config
      @profile_viewer = profile_viewer
      @extension = extension
      @authorizer = authorize
      @shards = ShardRouter.build(shards)
      @router = Router.new(ROUTES)
    end

    # The configuration this dashboard reads: its own, else the class's.
    def config = @config || self.class.config

    attr_reader :extension

    # A viewer given to this dashboard (or a callable answering one, read
    # at each request), else the class's.
    def profile_viewer
      viewer = @profile_viewer.respond_to?(:call) ? @profile_viewer.call : @profile_viewer
      viewer || self.class.profile_viewer
    end

    # The Redis servers this dashboard switches between (docs/sharding.md), or nil.
    def shards = @shards || self.class.shards

    # The shard's name on a shard's pages (ShardRouter::View); none here.
    def shard = nil

    # Whether the request may see the dashboard (Web.authorize's block, if any, says).
    def authorized?(env)
      hook = @authorizer || self.class.authorizer
      hook.nil? || !!hook.call(env)
    end

    # Serves a request (a Rack app).
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
      Pages::UnreachablePage.new(web, request, {}).show(e)
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
