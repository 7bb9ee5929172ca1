# frozen_string_literal: true

require "securerandom"

module Deckhand
  module DropIn
    # The Content-Security-Policy of drop-in mode's dashboard: Sidekiq's,
    # of the version drop-in mode stands in for, in place of plain
    # Deckhand's stricter one. Sidekiq Web extensions were written for
    # Sidekiq's policy: their scripts and stylesheets served from the
    # dashboard's origin without a nonce, 7.3's inline styles, images from
    # any https origin, scripts that connect to a websocket. Deckhand's own
    # pages load only what carries the request's nonce (env[:csp_nonce],
    # which Deckhand::Web's pages take as theirs), so they work under either.
    #
    #   app = WebPolicy.new(dashboard)
    #   app.call(env)  # => [200, {"content-security-policy" => "default-src 'self' https: http:; ...", ...}, body]
    class WebPolicy
      NONCE = "!nonce!"
      SHARED = ["default-src 'self' https: http:", "child-src 'self'", "connect-src 'self' https: http: wss: ws:"].freeze
      TAIL = ["frame-src 'self'", "img-src 'self' https: http: data:", "manifest-src 'self'", "media-src 'self'",
        "object-src 'none'", "script-src 'self' 'nonce-#{NONCE}'"].freeze
      # Sidekiq 8 allows no fonts and takes styles by nonce; 7.3 takes
      # fonts from the origin or any web address, and any inline style.
      POLICIES = {
        8 => [*SHARED, "font-src 'none'", *TAIL, "style-src 'self' 'nonce-#{NONCE}'", "worker-src 'self'", "base-uri 'self'"],
        7 => [*SHARED, "font-src 'self' https: http:", *TAIL, "style-src 'self' https: http: 'unsafe-inline'", "worker-src 'self'",
          "base-uri 'self'"]
      }.transform_values { |directives| directives.join("; ").freeze }.freeze
      HEADER = "content-security-policy"

      def initialize(app, policy: POLICIES.fetch(DropIn.version.web_policy))
        @app = app
        @policy = policy
      end

      # A response that set a policy (the dashboard's pages, an extension's)
      # gets Sidekiq's, naming this request's nonce.
      def call(env)
        nonce = (env[:csp_nonce] ||= SecureRandom.base64(16))
        status, headers, body = @app.call(env)
        headers = headers.merge(HEADER => @policy.gsub(NONCE, nonce)) if headers.key?(HEADER)
        [status, headers, body]
      end
    end
  end
end
