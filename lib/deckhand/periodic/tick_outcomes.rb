# frozen_string_literal: true

require_relative "tick_history"

module Deckhand
  module Periodic
    # Server middleware (installed first, so outermost) that writes what
    # became of a periodic tick's job into its entry's history: running when
    # it starts, then succeeded, or failed with the error's class. A job is a
    # tick when it carries its entry's mark ("periodic" and "periodic_at",
    # set by the leader: Server::Chores::PeriodicLoop); every other job pays
    # one Hash lookup. The writes are masked from the shutdown and cancel
    # interrupts, so a stop never leaves half a write; a job that goes back
    # to wait (the process stopped, a limiter rescheduled it, an iterable job
    # paused) reads "enqueued" again, with why.
    #
    #   config.server_middleware.prepend(Deckhand::Periodic::TickOutcomes, config)   # done at boot by the server
    class TickOutcomes
      # Raised to put a job back without a failure; named, not loaded here.
      LATER = {"Deckhand::Shutdown" => "handed back: its process stopped", "Deckhand::Interrupted" => "interrupted, to resume",
               "Deckhand::Limiter::OverLimit" => "rescheduled by a limiter"}.freeze
      QUIET = {Deckhand::Shutdown => :never, Deckhand::Cancelled => :never}.freeze

      # Into the configuration's chain and each capsule's own: a tick's job
      # runs in whichever capsule works its queue.
      def self.install(config)
        chains = [config.server_middleware, *config.capsules.each_value.filter_map(&:server_middleware)]
        chains.each { |chain| chain.prepend(self, config) unless chain.include?(self) }
      end

      # Whether the job is no tick: this middleware only yields (Chain#passes?).
      def self.deckhand_passes?(payload) = !(payload["periodic"].is_a?(String) && payload["periodic_at"].is_a?(Numeric))

      # Built for every job: the history only for a tick's.
      def initialize(config)
        @config = config
      end

      def call(_job, payload, _queue)
        return yield if self.class.deckhand_passes?(payload)
        @history = TickHistory.new(@config.store, @config.logger)
        started = quietly { @history.running(payload) }
        begin
          yield
        rescue Exception => e # rubocop:disable Lint/RescueException -- recorded, then re-raised untouched
          quietly { @history.finished(payload, started, e, later: LATER[e.class.name]) }
          raise
        end
        quietly { @history.finished(payload, started) }
      end

      private

      def quietly(&) = Thread.handle_interrupt(QUIET, &)
    end
  end

  # Every server records its ticks' outcomes, whether or not it has periodic
  # entries of its own: the leader may be another process.
  Config.on_boot { |config| Periodic::TickOutcomes.install(config) }
end
