# frozen_string_literal: true

require "securerandom"
require_relative "."
require_relative "session_token"

module Sidekiq
  class Web
    # Sidekiq's CSRF middleware in drop-in mode, for a Rack app of the
    # application's own: Deckhand's dashboard check (Deckhand::Web::Guard).
    # A state-changing request passes when the browser says it is
    # same-origin (Sec-Fetch-Site), or echoes in the form field "_csrf" the
    # token of its SameSite=Strict cookie ("deckhand_csrf"); anything else
    # gets 403. GET, HEAD and OPTIONS pass, with the token in
    # env[:csrf_token] for the forms to carry (the cookie is set when absent).
    # Deckhand's dashboard (Sidekiq::Web) applies the same check itself.
    #
    # Behind a Rack session (env["rack.session"]), it checks as Sidekiq's
    # does: the form sends back in "authenticity_token" the masked token of
    # env[:csrf_token], whose secret the session keeps
    # (Deckhand::DropIn::SessionToken); anything else gets 403 "Forbidden".
    #
    #   use Sidekiq::Web::CsrfProtection
    #   # in a form: <input type="hidden" name="_csrf" value="<%= env[:csrf_token] %>">
    #   # (with a session: name="authenticity_token")
    class CsrfProtection
      SAFE = %w[GET HEAD OPTIONS TRACE].freeze
      SESSION_FIELD = "authenticity_token"

      def initialize(app, _options = nil)
        @app = app
      end

      def call(env)
        return with_session(env) if env["rack.session"]
        request = Rack::Request.new(env)
        token = request.cookies[Deckhand::Web::Guard::COOKIE]
        unless SAFE.include?(request.request_method) || Deckhand::Web::Guard.new(request, token).allowed?
          return [403, {"content-type" => "text/plain"}, ["Forbidden: cross-site request refused (no same-origin Sec-Fetch-Site, no matching CSRF token)"]]
        end
        fresh = token.nil? || token.empty?
        env[:csrf_token] = token = SecureRandom.hex(32) if fresh
        env[:csrf_token] ||= token
        status, headers, body = @app.call(env)
        headers = headers.merge("set-cookie" => "#{Deckhand::Web::Guard::COOKIE}=#{token}; path=/; HttpOnly; SameSite=Strict") if fresh
        [status, headers, body]
      end

      private

      def with_session(env)
        token = Deckhand::DropIn::SessionToken.new(env["rack.session"])
        request = Rack::Request.new(env)
        unless SAFE.include?(request.request_method) || token.valid?(sent_token(request))
          env["rack.logger"]&.warn("attack prevented by #{self.class}: #{request.request_method} #{request.path} without this session's CSRF token")
          return [403, {"content-type" => "text/plain"}, ["Forbidden"]]
        end
        env[:csrf_token] = token.masked
        @app.call(env)
      end

      def sent_token(request)
        request.POST[SESSION_FIELD]
      rescue EOFError, Rack::Utils::ParameterTypeError, Rack::Utils::InvalidParameterError
        nil
      end
    end
  end
end
