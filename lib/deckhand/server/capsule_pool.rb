# frozen_string_literal: true

require_relative "fetcher"
require_relative "processor"

module Deckhand
  module Server
    # A running thread pool: one fetcher feeding `concurrency` processors, all
    # serving the queues of one Config::Capsule.
    class CapsulePool # :nodoc:
      attr_reader :spec, :fetcher, :processors

      def initialize(spec, config:, store:, identity:, sequence:, stats:, suspects:, on_fatal: nil, throttles: nil,
        landings: LandingWatch.new)
        @spec = spec
        @fetcher = Fetcher.new(spec, store: store, identity: identity, sequence: sequence, suspects: suspects,
          logger: config.logger, prefetch: config.prefetch, window: config.fetch_window, on_fatal: on_fatal,
          throttles: throttles, landings: landings, balanced: config.auto_balance)
        runner = JobRunner.new(config: config, store: store, identity: identity, fetcher: @fetcher,
          stats: stats, suspects: suspects, middleware: spec.server_middleware || config.server_middleware)
        @processors = Array.new(spec.concurrency) do |i|
          Processor.new("#{spec.name}-#{i}", @fetcher, runner, logger: config.logger)
        end
      end

      def start
        @fetcher.start
        @processors.each(&:start)
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
        @processors.reject { |processor| processor.join(remaining(deadline)) }
      end

      private

      def remaining(deadline) = [deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC), 0].max
    end
  end
end
