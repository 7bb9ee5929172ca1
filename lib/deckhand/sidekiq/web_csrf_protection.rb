# frozen_string_literal: true

require "securerandom"
require_relative "web"

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
    #   use Sidekiq::Web::CsrfProtection
    #   # in a form: <input type="hidden" name="_csrf" value="<%= env[:csrf_token] %>">
    class CsrfProtection
      SAFE = %w[GET HEAD OPTIONS TRACE].freeze

      def initialize(app, _options = nil)
        @app = app
      end

      def call(env)
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
    end
  end
end
