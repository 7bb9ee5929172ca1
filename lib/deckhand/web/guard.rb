# frozen_string_literal: true

require "openssl"

module Deckhand
  class Web
    # Decides whether a POST may change state. Browsers say where a request
    # comes from in Sec-Fetch-Site: only "same-origin" passes. A browser that
    # does not send it must echo the CSRF token from its SameSite=Strict cookie
    # in the form (and, if it sends Origin, name this site).
    #
    #   Guard.new(request, cookie_token).allowed?   # => true / false
    class Guard
      COOKIE = "deckhand_csrf"
      FIELD = "_csrf"

      def initialize(request, cookie_token)
        @request = request
        @cookie_token = cookie_token
      end

      def allowed?
        site = @request.get_header("HTTP_SEC_FETCH_SITE")
        return site == "same-origin" if site
        origin = @request.get_header("HTTP_ORIGIN")
        return false if origin && origin != @request.base_url
        token_matches?
      end

      private

      def token_matches?
        sent = @request.POST[FIELD]
        return false unless sent.is_a?(String) && @cookie_token.is_a?(String) && !@cookie_token.empty?
        sent.bytesize == @cookie_token.bytesize && OpenSSL.fixed_length_secure_compare(sent, @cookie_token)
      rescue EOFError, Rack::Utils::ParameterTypeError, Rack::Utils::InvalidParameterError
        false
      end
    end
  end
end
