# frozen_string_literal: true

require_relative "fetch/fetcher"
require_relative "run/processor"
require_relative "fibers/pool"
require_relative "fibers/watchdog"

module Deckhand
  module Server
    # A running capsule: one fetcher feeding `concurrency` processors, all
    # serving the queues of one Config::Capsule. A fiber capsule's
    # processors are one Fibers::Pool of worker fibers (watched by a
    # Fibers::Watchdog) in place of threads; fetch, acknowledgement, recovery
    # and shutdown are the same code for both.
    class CapsulePool # :nodoc:
      attr_reader :spec, :fetcher, :processors

      def initialize(spec, config:, store:, identity:, sequence:, stats:, suspects:, on_fatal: nil, throttles: nil,
        landings: Fetch::Idle::LandingWatch.new)
        @spec = spec
        @fetcher = Fetch::Fetcher.new(spec, store: store, identity: identity, sequence: sequence, suspects: suspects,
          logger: config.logger, prefetch: config.prefetch, window: config.fetch_window, on_fatal: on_fatal,
          throttles: throttles, landings: landings, balanced: config.auto_balance)
        runner = ->(shield = nil) do
          Run::JobRunner.new(config: config, store: store, identity: identity, fetcher: @fetcher, stats: stats,
            suspects: suspects, middleware: spec.server_middleware || config.server_middleware, shield: shield)
        end
        @processors = spec.fibers? ? fiber_pool(spec, runner, config.logger) : threads(spec, runner.call, config.logger)
      end

      def start
        @fetcher.start
        @processors.each(&:start)
        @watchdog&.start
        self
      end

      def quiet = @fetcher.quiet

      # Stops fetching, hands back what was fetched but not started, and waits
      # for running jobs until `deadline` (monotonic). Returns the processors
      # still running then.
      def drain(deadline)
        @fetcher.stop
        @fetcher.finish(remaining(deadline))
        @processors.each(&:stop)
        stuck = @processors.reject { |processor| processor.join(remaining(deadline)) }
        @watchdog&.stop
        stuck
      end

      private

      def threads(spec, runner, logger)
        Array.new(spec.concurrency) { |i| Run::Processor.new("#{spec.name}-#{i}", @fetcher, runner, logger: logger) }
      end

      def fiber_pool(spec, runner, logger)
        Fibers::Loader.load!(spec.name)
        shield = Fibers::Shield.new
        pool = Fibers::Pool.new(spec, @fetcher, runner.call(shield), shield, logger: logger)
        @watchdog = Fibers::Watchdog.new(pool, logger: logger)
        [pool]
      end

      def remaining(deadline) = [deadline - Monotonic.now, 0].max
    end
  end
end
