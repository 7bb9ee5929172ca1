# frozen_string_literal: true

require "deckhand/web"

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
  class Web
    @middlewares = []

    class << self
      def call(env) = app.call(env)

      def use(middleware, *args, &block)
        @app = nil
        @middlewares << [middleware, args, block]
      end

      attr_reader :middlewares

      # The Redis the dashboard shows: the configuration's unless set.
      def redis_pool = @pool&.store || Deckhand.config.store

      def redis_pool=(pool)
        @app = nil
        @pool = pool && Deckhand::Client::Target.for(pool, "Sidekiq::Web.redis_pool=")
      end

      def app
        web = Deckhand::Web.new(config: @pool&.config_for(Deckhand.config))
        @app ||= @middlewares.reverse.reduce(web) do |inner, (middleware, args, block)|
          middleware.new(inner, *args, &block)
        end
      end

      # Sidekiq's extension points (tabs, locales, custom pages) have no
      # counterpart in Deckhand's dashboard.
      %i[register register_extension tabs custom_tabs locales views configure app_url=].each do |name|
        define_method(name) do |*|
          raise Deckhand::DropIn::Unsupported.new("Sidekiq::Web.#{name}", "Deckhand's dashboard has no extension API")
        end
      end
    end
  end
end
