# frozen_string_literal: true

require "digest/sha2"

module Deckhand
  class Web
    # The dashboard's own stylesheet and scripts, read once from web/assets/.
    # Their URLs carry a digest of their content, so browsers may keep them
    # for a year and still never run a stale one after an upgrade.
    #
    #   Assets.digest("deckhand.js")   # => "3f2a9c0d1e7b"
    #   Assets.response("deckhand.js") # => [200, headers, [body]] or nil
    module Assets
      DIR = File.expand_path("assets", __dir__)
      TYPES = {".js" => "text/javascript; charset=utf-8", ".css" => "text/css; charset=utf-8",
               ".svg" => "image/svg+xml", ".txt" => "text/plain; charset=utf-8"}.freeze

      FILES = Dir[File.join(DIR, "*")].to_h do |path|
        body = File.binread(path).freeze
        [File.basename(path), [body, Digest::SHA256.hexdigest(body)[0, 12].freeze]]
      end.freeze

      module_function

      def digest(name) = FILES.fetch(name).last

      def response(name)
        body, = FILES[name]
        return nil unless body
        headers = {
          "content-type" => TYPES.fetch(File.extname(name), "application/octet-stream"),
          "cache-control" => "public, max-age=31536000, immutable",
          "x-content-type-options" => "nosniff",
          "content-length" => body.bytesize.to_s
        }
        [200, headers, [body]]
      end
    end
  end
end
