# frozen_string_literal: true

module Deckhand
  class Config
    # Refuses a Redis URL that redis-client would reject with a bare
    # "Unknown URL scheme" deep inside the first push: most often REDIS_URL
    # set to "localhost:6379" or "10.0.0.5:6379/2", without "redis://".
    #
    #   RedisUrl.check!("redis://10.0.0.5:6379/2")   # => nil
    #   RedisUrl.check!("10.0.0.5:6379")             # raises ConfigError naming redis://10.0.0.5:6379
    module RedisUrl # :nodoc:
      SCHEMES = %w[redis rediss unix].freeze

      module_function

      def check!(url)
        raise ConfigError, "the Redis url must be a String like \"redis://host:6379/0\", got #{url.inspect}" unless url.is_a?(String)
        scheme = url[%r{\A([a-z][a-z0-9+.-]*)://}i, 1]
        return if scheme && SCHEMES.include?(scheme.downcase)
        shown = redact(url)
        if scheme
          raise ConfigError, "the Redis url #{shown.inspect} (REDIS_URL or redis: {url:}) has the scheme #{scheme}://; " \
            "Redis URLs start with redis://, rediss:// (TLS) or unix:// (a socket)"
        end
        raise ConfigError, "the Redis url #{shown.inspect} (REDIS_URL or redis: {url:}) has no scheme: " \
          "write redis://#{shown} (rediss:// for TLS, unix:///path/to/redis.sock for a socket)"
      end

      # Cluster mode's `cluster:` option: the nodes' URLs (any of them will
      # do; the client learns the rest), or true to start from `url:`.
      #
      #   RedisUrl.check_cluster!(["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"], nil)  # => nil
      #   RedisUrl.check_cluster!(true, nil)   # raises: true needs url:
      def check_cluster!(nodes, url)
        return if nodes == false
        if nodes == true
          return unless url.nil?
          raise ConfigError, "redis: {cluster: true} needs a node to start from: add url: \"redis://host:7000\", " \
            "or list the nodes, cluster: [\"redis://host:7000\", ...]"
        end
        unless nodes.is_a?(Array) && !nodes.empty?
          raise ConfigError, "redis: {cluster:} must list the cluster's node URLs, like " \
            "cluster: [\"redis://10.0.0.1:7000\", \"redis://10.0.0.2:7000\"], or be true (start from url:); got #{nodes.class}"
        end
        nodes.each { |node| check!(node) }
      end

      # No password in an error message: "user:secret@host" becomes "user:***@host".
      def redact(url) = url.sub(%r{\A((?:[a-z][a-z0-9+.-]*://)?[^/@:]*:)[^@/]*@}i, '\1***@')
    end
  end
end
