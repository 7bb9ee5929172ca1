# frozen_string_literal: true

require "json"

module Deckhand
  class Web
    # Sends a profile to a profile viewer's store (Firefox Profiler's, as
    # Sidekiq 8 does) and returns the id the viewer opens it by. Only when a
    # person clicks View, and only to the store the application configured
    # (Web.profile_viewer); the store answers a JWT whose payload names the
    # profile's token.
    #
    #   ProfileUpload.new(store_url: "https://api.profiler.firefox.com/compressed-store").call(gzipped_bytes)
    #   # => "abc123..."
    class ProfileUpload
      class Failed < Deckhand::Error; end

      ACCEPT = "application/vnd.firefox-profiler+json;version=1.0"

      def initialize(viewer)
        @uri = URI(viewer.fetch(:store_url))
      end

      def call(data)
        require "net/http"
        http = Net::HTTP.new(@uri.host, @uri.port)
        http.use_ssl = @uri.scheme == "https"
        http.open_timeout = http.read_timeout = 10
        request = Net::HTTP::Post.new(@uri.request_uri, "Accept" => ACCEPT, "User-Agent" => "Deckhand #{VERSION} job profiler",
          "Content-Type" => "application/octet-stream")
        request.body = data
        response = http.request(request)
        raise Failed, "the profile store at #{@uri.host} answered #{response.code}" unless response.is_a?(Net::HTTPSuccess)
        token(response.body)
      rescue SystemCallError, IOError, Timeout::Error, OpenSSL::SSL::SSLError => e
        raise Failed, "the profile store at #{@uri.host} could not be reached (#{e.class}): download the profile instead"
      end

      private

      def token(jwt)
        payload = jwt.to_s.split(".")[1] or raise Failed, "the profile store at #{@uri.host} answered no token"
        JSON.parse(payload.tr("-_", "+/").unpack1("m"))["profileToken"] or raise Failed, "the profile store's answer names no profile"
      rescue JSON::ParserError
        raise Failed, "the profile store at #{@uri.host} answered something that is not a token"
      end
    end
  end
end
