# frozen_string_literal: true

require "zlib"
require "json"

module Deckhand
  module Payload
    # error_backtrace as Sidekiq stores it: Base64 of zlib-deflated JSON array.
    # About half the size of the plain array in a retry set of 100,000 jobs.
    module Backtrace
      module_function

      def compress(lines) = [Zlib::Deflate.deflate(JSON.generate(lines))].pack("m0")

      # Reads both the compressed form and the plain Array older writers stored.
      def expand(value)
        return value if value.is_a?(Array)
        return [] unless value.is_a?(String)
        JSON.parse(Zlib::Inflate.inflate(value.unpack1("m0")))
      rescue Zlib::Error, JSON::ParserError, ArgumentError
        []
      end
    end
  end
end
