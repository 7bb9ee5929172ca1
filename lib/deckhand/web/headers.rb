# frozen_string_literal: true

module Deckhand
  class Web
    # The response headers that keep the dashboard safe to mount: a strict
    # Content-Security-Policy whose only scripts and styles are the ones tagged
    # with this response's nonce, no sniffing, no caching of job data, no framing
    # by other sites.
    #
    #   Headers.page(nonce)  # => {"content-security-policy" => "default-src 'none'; script-src 'nonce-...'...", ...}
    module Headers
      module_function

      def policy(nonce)
        [
          "default-src 'none'", "script-src 'nonce-#{nonce}'", "style-src 'nonce-#{nonce}'",
          "img-src 'self' data:", "connect-src 'self'", "form-action 'self'",
          "frame-ancestors 'self'", "base-uri 'none'"
        ].join("; ")
      end

      def common(nonce)
        {
          "content-security-policy" => policy(nonce),
          "x-content-type-options" => "nosniff",
          "x-frame-options" => "SAMEORIGIN",
          "referrer-policy" => "same-origin",
          "cache-control" => "no-store"
        }
      end

      def page(nonce) = common(nonce).merge("content-type" => "text/html; charset=utf-8")

      def json(nonce) = common(nonce).merge("content-type" => "application/json")

      def text(nonce) = common(nonce).merge("content-type" => "text/plain; charset=utf-8")
    end
  end
end
