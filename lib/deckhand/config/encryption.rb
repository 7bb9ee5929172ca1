# frozen_string_literal: true

module Deckhand
  class Config
    # The keys for encrypted arguments (deckhand_options encrypt: true): which
    # version new jobs are sealed with, and a block that returns the 32 key
    # bytes of any version (nil when this process does not have it). Set with
    # Config#encryption; a block cannot live in the config file, so it is not
    # one of SETTINGS.
    #
    #   Deckhand.configure do |c|
    #     c.encryption(active_version: 2) { |version| Base64.strict_decode64(ENV.fetch("DECKHAND_KEY_#{version}")) }
    #   end
    class Encryption
      # Bytes of each key (AES-256-GCM).
      KEY_BYTES = 32

      attr_reader :active_version

      def initialize(active_version, provider)
        unless active_version.is_a?(Integer) && active_version.positive?
          raise ConfigError, "encryption active_version must be a positive Integer (the version new jobs are sealed with), got #{active_version.inspect}"
        end
        raise ConfigError, "encryption needs a block returning the key bytes of a version: c.encryption(active_version: 1) { |v| key(v) }" unless provider
        @active_version = active_version
        @provider = provider
        @keys = {}
        @lock = Mutex.new
        key(active_version) or raise ConfigError, "encryption: the block returned no key for the active version #{active_version}"
      end

      # The key bytes of `version`, or nil when the block has none. Checked
      # and kept once found.
      def key(version)
        @lock.synchronize do
          @keys[version] ||= begin
            bytes = @provider.call(version)
            if bytes && !(bytes.is_a?(String) && bytes.bytesize == KEY_BYTES)
              raise ConfigError, "encryption key version #{version} must be #{KEY_BYTES} bytes (AES-256), got " \
                "#{bytes.is_a?(String) ? "#{bytes.bytesize} bytes" : bytes.class}; e.g. SecureRandom.bytes(32), stored base64"
            end
            bytes&.b&.freeze
          end
        end
      end

      def inspect = "#<#{self.class} active_version=#{@active_version}>" # never the keys
    end
  end
end
