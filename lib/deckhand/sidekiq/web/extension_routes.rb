# frozen_string_literal: true

require "securerandom"
require_relative "application"
require_relative "extension"
require_relative "post_check"
require_relative "session_token"

module Deckhand
  module DropIn
    # Serves Sidekiq Web extensions' routes (Sidekiq::WebApplication.get ...)
    # in front of the dashboard in drop-in mode, and runs their `before` and
    # `after` hooks around every request, Deckhand's pages included. An
    # extension's page is laid out in the dashboard (WebAction#erb) under its
    # content security policy; a request that changes state (anything but GET
    # and HEAD) passes the dashboard's own checks first: same-origin or a
    # CSRF token (WebPostCheck), and Deckhand::Web.authorize.
    #
    #   WebExtensionRoutes.new(WebPaths.new(dashboard), dashboard: dashboard)
    class WebExtensionRoutes
      SAFE = %w[GET HEAD].freeze

      def initialize(app, dashboard:)
        @app = app
        @dashboard = dashboard
      end

      def call(env)
        action = Sidekiq::WebApplication.match(env)
        hooked = Sidekiq::WebApplication.befores.any? || Sidekiq::WebApplication.afters.any?
        return @app.call(env) unless action || hooked
        prepare(env)
        if action && !SAFE.include?(env["REQUEST_METHOD"])
          refusal = refuse(env) and return refusal
        end
        run(action || Sidekiq::WebAction.new(env, nil), env)
      end

      private

      def run(action, env)
        result = catch(:halt) do
          Sidekiq::WebApplication.run_befores(Sidekiq::Web, action)
          action.block ? action.instance_exec(env, &action.block) : @app.call(env)
        ensure
          Sidekiq::WebApplication.run_afters(Sidekiq::Web, action)
        end
        respond(action, result, env)
      end

      # What Sidekiq's forms and Deckhand's check carry: the session's masked
      # token (env[:csrf_token]) and the dashboard cookie's (set on the page).
      def prepare(env)
        env[Sidekiq::WebAction::DASHBOARD] = @dashboard
        env[:csp_nonce] ||= SecureRandom.base64(16)
        session = env["rack.session"]
        env[:csrf_token] ||= SessionToken.new(session).masked if session
        cookie = Rack::Request.new(env).cookies[Deckhand::Web::Guard::COOKIE]
        env[WebExtension::CSRF_TOKEN] ||= (cookie.is_a?(String) && !cookie.empty?) ? cookie : SecureRandom.hex(32)
      end

      def refuse(env)
        return [403, {"content-type" => "text/plain"}, ["Forbidden: cross-site request refused"]] unless WebPostCheck.new(env).allowed?
        return [403, {"content-type" => "text/plain"}, ["You may look but not change anything here"]] unless @dashboard.authorized?(env)
        nil
      end

      # An Array is a Rack response (a redirect, halt, json); anything else
      # is the page's HTML, laid out already when `erb` rendered it.
      def respond(action, result, env)
        return result if result.is_a?(Array)
        headers = result.equal?(action.rendered) ? action.rendered_headers.dup : Deckhand::Web::Headers.page(env[:csp_nonce])
        headers["content-language"] = action.locale
        [200, headers, [result.to_s]]
      end
    end
  end
end
