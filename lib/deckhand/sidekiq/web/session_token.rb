# frozen_string_literal: true

require "securerandom"
require "openssl"

module Deckhand
  module DropIn
    # The CSRF token of a Rack session, as Sidekiq::Web::CsrfProtection keeps
    # it for an application's own Rack app: a random secret in the session
    # (session[:csrf]), handed to forms masked with a fresh one-time pad on
    # every request (so the page never shows the same bytes twice, which
    # defeats BREACH-style compression attacks), checked in constant time.
    #
    #   token = SessionToken.new(env["rack.session"])
    #   env[:csrf_token] = token.masked          # 88 characters, new each call
    #   token.valid?(params["authenticity_token"]) # => true for any masked copy
    class SessionToken
      KEY = :csrf
      LENGTH = 32

      def initialize(session)
        @session = session
      end

      # A secret the application put in the session itself (of another
      # length, in URL-safe Base64) is masked as it is, as Sidekiq does.
      def masked
        secret = decode(@session[KEY] ||= [SecureRandom.random_bytes(LENGTH)].pack("m0"))
        pad = SecureRandom.random_bytes(secret.bytesize)
        [pad + xor(pad, secret)].pack("m0")
      end

      # False without a secret in the session (a new or emptied session).
      def valid?(sent)
        stored = @session[KEY]
        return false unless sent.is_a?(String) && stored.is_a?(String)
        secret = decode(stored)
        bytes = decode(sent)
        return false unless secret.bytesize == LENGTH && bytes.bytesize == 2 * LENGTH
        OpenSSL.fixed_length_secure_compare(xor(bytes.byteslice(0, LENGTH), bytes.byteslice(LENGTH, LENGTH)), secret)
      rescue ArgumentError
        false
      end

      private

      # Sidekiq writes its tokens in URL-safe Base64, Deckhand in the standard alphabet.
      def decode(text) = text.tr("-_", "+/").unpack1("m0")

      def xor(a, b) = a.bytes.zip(b.bytes).map { |x, y| x ^ y }.pack("C*")
    end
  end
end
