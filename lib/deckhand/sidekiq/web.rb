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
  class Web
    @middlewares = []

    class << self
      def call(env) = app.call(env)

      def use(middleware, *args, &block)
        @app = nil
        @middlewares << [middleware, args, block]
      end

      attr_reader :middlewares

      def app
        @app ||= @middlewares.reverse.reduce(Deckhand::Web.new) do |inner, (middleware, args, block)|
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
