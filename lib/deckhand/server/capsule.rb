# frozen_string_literal: true

require_relative "fetcher"
require_relative "processor"

module Deckhand
  module Server
    # A running thread pool: one fetcher feeding `concurrency` processors, all
    # serving the queues of one Config::Capsule.
    class Capsule
      attr_reader :spec, :fetcher

      def initialize(spec, config:, store:, inflight:, identity:, sequence:, stats:)
        @spec = spec
        @fetcher = Fetcher.new(spec, store: store, inflight: inflight, identity: identity,
          sequence: sequence, logger: config.logger, prefetch: config.prefetch, window: config.fetch_window)
        runner = JobRunner.new(config: config, store: store, inflight: inflight, fetcher: @fetcher, stats: stats)
        @processors = Array.new(spec.concurrency) { Processor.new(@fetcher, runner) }
      end

      def start
        @fetcher.start
        @processors.each_with_index { |p, i| p.start("deckhand-#{@spec.name}-#{i}") }
        self
      end

      def quiet = @fetcher.quiet

      # Stops fetching and waits for running jobs until `deadline` (monotonic).
      # Returns the processors still running then.
      def drain(deadline)
        @fetcher.stop
        @processors.reject do |processor|
          processor.thread.join([deadline - ::Process.clock_gettime(::Process::CLOCK_MONOTONIC), 0].max)
        end
      end

      def threads = @processors.map(&:thread)
    end
  end
end
