# frozen_string_literal: true

require "securerandom"
require "deckhand/web"
require_relative "web/paths"
require_relative "web/settings"
require_relative "web/extension_routes"
require_relative "web/policy"

module Sidekiq
  # `mount Sidekiq::Web => "/sidekiq"` in drop-in mode mounts Deckhand's
  # dashboard. Rack middleware added with `use` (authentication, sessions)
  # wraps it, as in Sidekiq.
  #
  #   Sidekiq::Web.use Rack::Auth::Basic do |user, password|
  #     Rack::Utils.secure_compare(password, ENV["DASHBOARD_PASSWORD"])
  #   end
  #   run Sidekiq::Web
  #
  # A sharded application shows another Redis with `Sidekiq::Web.redis_pool =`
  # (a pool of Sidekiq::RedisConnection.create), or switches between several
  # with Deckhand::Web.shards (docs/sharding.md).
  #
  # `Sidekiq::Web.new` is a Rack app of its own, with its own middleware
  # (the class's, then what `use` adds to it):
  #
  #   app = Sidekiq::Web.new
  #   app.use Rack::Session::Cookie, secret: ENV["SESSION_SECRET"]
  #   run app
  #
  # Web extensions (plugins' pages) register as in Sidekiq, and their tabs
  # and routes serve inside Deckhand's dashboard (DropIn::WebSettings):
  #
  #   Sidekiq::Web.register(MyExtension, name: "reports", tab: "Reports", index: "reports")
  class Web
    extend Deckhand::DropIn::WebSettings

    # The header telling Rack routers a request was not the dashboard's.
    X_CASCADE = (Rack.release >= "3") ? "x-cascade" : "X-Cascade"

    class << self
      def call(env) = app.call(env)

      def use(middleware, *args, &block)
        @app = nil
        middlewares << [middleware, args, block]
      end

      def middlewares = @middlewares ||= []

      # The Redis the dashboard shows: the pool given, else the configuration's.
      def redis_pool = @given_pool || Deckhand::DropIn::RedisPool.for(Deckhand.config.store)

      def redis_pool=(pool)
        @app = nil
        @pool = pool && Deckhand::Client::Target.for(pool, "Sidekiq::Web.redis_pool=")
        @given_pool = pool
      end

      attr_reader :pool

      # Built again when the class's middleware changed (`middlewares.clear` too).
      def app
        @app = nil unless @built_with == middlewares
        @built_with = middlewares.dup
        @app ||= new
      end
    end

    # Sidekiq 8 moved the extension API under Sidekiq::Web; its names for
    # the same classes. Config is what Sidekiq::Web.configure yields.
    Action = Sidekiq::WebAction
    Route = Sidekiq::WebRoute
    Router = Sidekiq::WebRouter
    Application = Sidekiq::WebApplication
    Helpers = Sidekiq::WebHelpers
    Config = Deckhand::DropIn::WebSettings

    # This app's middleware: a copy of the class's taken when first asked
    # for (at the latest, when the app serves its first request, as Sidekiq
    # builds it), then what `use` adds.
    def middlewares = @middlewares ||= self.class.middlewares.dup

    def use(middleware, *args, &block)
      @app = nil
      middlewares << [middleware, args, block]
    end

    def call(env)
      env[:csp_nonce] ||= SecureRandom.base64(16) # extensions' script and style tags carry it
      app.call(env)
    end

    def settings = self.class.settings

    private

    def app
      @app ||= middlewares.reverse.reduce(dashboard) do |inner, (middleware, args, block)|
        middleware.new(inner, *args, &block)
      end
    end

    # Sidekiq 8's viewer settings (Firefox Profiler's unless changed), read
    # at each request; a store URL set to nil offers the download only.
    def profile_viewer
      store_url = self.class[:profile_store_url] or return nil
      {store_url: store_url, view_url: self.class[:profile_view_url]}
    end

    def dashboard
      config = self.class.pool&.config_for(Deckhand.config)
      web = Deckhand::Web.new(config: config, extension: Deckhand::DropIn::WebExtension.new, profile_viewer: -> { profile_viewer })
      routes = Deckhand::DropIn::WebExtensionRoutes.new(Deckhand::DropIn::WebPaths.new(web, config: config), dashboard: web)
      Deckhand::DropIn::WebPolicy.new(routes)
    end
  end
end
