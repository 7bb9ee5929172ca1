# frozen_string_literal: true

require_relative "../hooks"

module Deckhand
  class Config
    # A server's events, for one configuration (Deckhand::Hooks keeps the
    # blocks). The points of its life, run in the order added: :startup
    # (booted, before the first job), :quiet (stopped taking jobs),
    # :shutdown (about to hand back what is left and exit), :exit (all
    # handed back and the process record gone: the last thing it does); and
    # its heartbeat's, as Sidekiq has them: :heartbeat once, at the first
    # beat that reached Redis after :startup (the process is visible to the
    # fleet), :beat at every beat that reached Redis after :startup (on the
    # heartbeat's thread: keep it short, it delays the next beat).
    #
    #   Deckhand.configure do |config|
    #     config.events.on(:startup) { Metrics.connect }
    #     config.events.on(:beat) { Metrics.flush }
    #     config.events.on(:shutdown) { Metrics.flush }
    #     config.events.on(:recovered) { |count| Alerts.note("#{count} jobs of a dead process recovered") }
    #   end
    #
    # And the server's notices, called with a count: :recovered (jobs the
    # reaper moved back from dead processes), :poison_pill (a job buried
    # for crashing its processes) and :chunk (a chunk ran: its jobs, then
    # its class and queue, docs/chunks.md); Operations feeds them to
    # Prometheus and StatsD. A block that raises is logged and the others still run; at
    # :startup the error stops the boot, as a server that cannot start
    # should not run. Blocks are added before boot: the events freeze with
    # the configuration.
    class Events
      # The points of a server's life and of its heartbeat (Sidekiq's lifecycle events).
      NAMES = %i[startup quiet shutdown exit heartbeat beat].freeze
      # What a server tells about its work, with a count.
      NOTICES = %i[recovered poison_pill chunk].freeze

      def initialize
        @hooks = Hooks.new(NAMES + NOTICES)
      end

      # Runs the block at the event `name` (NAMES, NOTICES).
      #
      #   config.events.on(:startup) { Metrics.gauge("deckhand.up", 1) }
      def on(name, &block)
        name = name.to_sym
        unless @hooks.known?(name)
          raise ConfigError, "no server event #{name.inspect}; one of #{@hooks.names.map(&:inspect).join(", ")}"
        end
        raise ArgumentError, "give a block to run on #{name.inspect}" unless block
        raise ConfigError, "cannot add a #{name.inspect} handler: the configuration is frozen once the server has booted" if frozen?
        @hooks.add(name, block)
        self
      end

      # The blocks added for `name`, in order.
      def handlers(name) = @hooks.list(name.to_sym)

      # Runs the blocks of `name` with `args` (a notice's count).
      def fire(name, logger, *args)
        @hooks.run(name, *args) do |error|
          raise error if name == :startup
          logger.error("#{name} handler raised #{error.class}: #{error.message}")
        end
      end

      # Freezes the hooks with the configuration at boot.
      def freeze
        @hooks.freeze
        super
      end
    end
  end
end
