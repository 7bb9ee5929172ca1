# frozen_string_literal: true

require "rack"
require_relative "session_token"

module Deckhand
  module DropIn
    # Whether a state-changing request to the dashboard in drop-in mode may
    # go on: where Deckhand's own check passes it (Deckhand::Web::Guard:
    # same-origin Sec-Fetch-Site, or the cookie's token in `_csrf`), or where
    # Sidekiq's would (the Rack session's token in `authenticity_token`, or
    # `$TESTING` set) and the browser does not say it comes from another site.
    #
    #   check = WebPostCheck.new(env)
    #   check.allowed?   # => true / false
    #   check.guarded?   # => true when Deckhand's own check passed it
    class WebPostCheck
      def initialize(env)
        @env = env
        @request = Rack::Request.new(env)
      end

      def guarded? = @guarded ||= Deckhand::Web::Guard.new(@request, @request.cookies[Deckhand::Web::Guard::COOKIE]).allowed?

      def allowed? = guarded? || (vouched? && !cross_site?)

      def form
        @request.POST
      rescue EOFError, Rack::Utils::ParameterTypeError, Rack::Utils::InvalidParameterError
        {}
      end

      private

      # What a browser says of a request from another site, in Sec-Fetch-Site or Origin.
      def cross_site?
        site = @request.get_header("HTTP_SEC_FETCH_SITE")
        origin = @request.get_header("HTTP_ORIGIN")
        (site && !%w[same-origin none].include?(site)) || (origin && origin != @request.base_url)
      end

      # Sidekiq's own reasons to let a POST through: its session token, or
      # its test mode (`$TESTING`, set by Sidekiq's and applications' test helpers).
      def vouched?
        return true if defined?($TESTING) && $TESTING # standard:disable Style/GlobalVars
        session = @env["rack.session"]
        !session.nil? && SessionToken.new(session).valid?(form["authenticity_token"])
      end
    end
  end
end
