# frozen_string_literal: true

require "digest/sha1"

module Deckhand
  class Store
    # The Lua scripts under store/scripts/, read once, called by SHA and sent again
    # when Redis answers NOSCRIPT (it restarted or its script cache was flushed).
    class Scripts
      DIR = File.expand_path("scripts", __dir__)

      def initialize
        @source = {}
        @sha = {}
        Dir[File.join(DIR, "*.lua")].each do |path|
          name = File.basename(path, ".lua").to_sym
          @source[name] = File.read(path).freeze
          @sha[name] = Digest::SHA1.hexdigest(@source[name]).freeze
        end
        @source.freeze
        @sha.freeze
      end

      def names = @source.keys

      def run(conn, name, keys, argv)
        sha = @sha.fetch(name) { raise ArgumentError, "no Lua script named #{name}" }
        conn.call("EVALSHA", sha, keys.size, *keys, *argv)
      rescue RedisClient::CommandError => e
        raise unless e.message.start_with?("NOSCRIPT")
        conn.call("EVAL", @source[name], keys.size, *keys, *argv)
      end
    end
  end
end
