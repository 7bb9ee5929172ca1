# frozen_string_literal: true

require "erb"

module Deckhand
  class Web
    # The Redis servers the dashboard can switch between (docs/sharding.md):
    # names to a Deckhand::Config, a Deckhand::Store, a redis-client options
    # Hash or a Redis URL. The first opens at the dashboard's own address;
    # each one is also under `shards/<name>/`, every page's reads and writes
    # then going to its Redis. A shard's pages are the same pages mounted one
    # level down (its prefix joins SCRIPT_NAME), so every link, form and
    # redirect they build stays on that shard.
    #
    #   Deckhand::Web.shards = {"main" => Deckhand.config, "eu" => ENV["EU_REDIS_URL"]}
    #   # /deckhand/                  the main Redis
    #   # /deckhand/shards/eu/queues  the queues of the eu Redis
    class ShardRouter # :nodoc:
      PREFIX = "shards"

      # Where the dashboard is mounted, before any shard's prefix (the CSRF and
      # notice cookies live there, one for all shards).
      MOUNT = "deckhand.web.mount"

      # The shard a request reads and writes: the Web app's answers, with this
      # shard's configuration. Pages get it as their `web`.
      View = Struct.new(:web, :config, :shards, :shard) do
        def authorized?(env) = web.authorized?(env)

        def extension = web.extension
      end

      def self.build(map)
        return nil if map.nil?
        raise ConfigError, "Deckhand::Web shards must be a Hash of names to Redis, like {\"main\" => Deckhand.config, \"eu\" => \"redis://eu:6379/0\"}; got a #{map.class}" unless map.is_a?(Hash) && !map.empty?
        new(map)
      end

      attr_reader :names

      def initialize(map)
        @targets = map.to_h do |name, value|
          name = name.to_s
          raise ConfigError, "Deckhand::Web shard names must be non-empty; got #{name.inspect}" if name.strip.empty?
          [name.dup.freeze, value.is_a?(Config) ? value : Client::Target.for(value, "Deckhand::Web shard #{name.inspect}")]
        end.freeze
        @names = @targets.keys.freeze
      end

      def size = @names.size

      # [env, View] for a request, the env moved below the shard's prefix when
      # its path names one; nil for a shard not configured.
      def enter(web, env)
        base = env["SCRIPT_NAME"].to_s
        first, name, rest = env["PATH_INFO"].to_s.delete_prefix("/").split("/", 3)
        return [env.merge(MOUNT => base), view(web, @names.first)] unless first == PREFIX
        name = decode(name) or return nil
        return nil unless @targets.key?(name)
        inner = env.merge(MOUNT => base, "SCRIPT_NAME" => "#{base}/#{PREFIX}/#{self.class.segment(name)}", "PATH_INFO" => "/#{rest}")
        [inner, view(web, name)]
      end

      # A name as a path segment: every reserved character percent-encoded.
      def self.segment(name) = ERB::Util.url_encode(name)

      private

      def view(web, name)
        target = @targets.fetch(name)
        config = target.is_a?(Config) ? target : target.config_for(web.config)
        View.new(web, config, self, name)
      end

      def decode(segment)
        return nil if segment.nil? || segment.empty?
        name = Rack::Utils.unescape_path(segment)
        name.valid_encoding? ? name : nil
      rescue ArgumentError
        nil
      end
    end
  end
end
