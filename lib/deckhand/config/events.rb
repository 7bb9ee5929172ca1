# frozen_string_literal: true

module Deckhand
  class Config
    # Blocks a server runs at points of its life, in the order added:
    # :startup (booted, before the first job), :quiet (stopped taking jobs),
    # :shutdown (about to hand back what is left and exit).
    #
    #   Deckhand.configure do |config|
    #     config.events.on(:startup) { Metrics.connect }
    #     config.events.on(:shutdown) { Metrics.flush }
    #   end
    #
    # A block that raises is logged and the others still run; at :startup the
    # error stops the boot, as a server that cannot start should not run.
    class Events
      NAMES = %i[startup quiet shutdown].freeze

      def initialize
        @handlers = Hash.new { |hash, name| hash[name] = [] }
      end

      def on(name, &block)
        name = name.to_sym
        raise ConfigError, "no server event #{name.inspect}; one of #{NAMES.map(&:inspect).join(", ")}" unless NAMES.include?(name)
        raise ArgumentError, "give a block to run on #{name.inspect}" unless block
        raise ConfigError, "cannot add a #{name.inspect} handler: the configuration is frozen once the server has booted" if frozen?
        @handlers[name] << block
        self
      end

      # The blocks added for `name`, in order (frozen once the server boots).
      def handlers(name) = @handlers.fetch(name.to_sym) { frozen? ? [].freeze : @handlers[name.to_sym] }

      def fire(name, logger)
        @handlers.fetch(name, []).each do |handler|
          handler.call
        rescue => e
          raise if name == :startup
          logger.error("#{name} handler raised #{e.class}: #{e.message}")
        end
      end

      def freeze
        @handlers.default_proc = nil
        @handlers.each_value(&:freeze)
        super
      end
    end
  end
end
