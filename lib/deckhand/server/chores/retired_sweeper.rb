# frozen_string_literal: true

require_relative "chore"
require_relative "../../store/tags/retired_sweep"

module Deckhand
  module Server
    module Chores
      # Cluster mode: every INTERVAL seconds (jittered), one server process of
      # the fleet (the one that takes the move lock) moves jobs pushed under a
      # tag a queue move retired to the queue's current tag (Store::Tags::RetiredSweep),
      # so a process that does not follow placement, pushing under a queue's
      # old tag, delays its jobs by INTERVAL at most instead of stranding them;
      # each sweep that finds some logs a warning naming the queue and the fix.
      #
      #   sweeper = RetiredSweeper.build(config: config, store: config.store)   # nil in plain mode
      #   sweeper&.start
      #   sweeper.sweep   # => {"mail" => 3}
      class RetiredSweeper < Chores::Chore
        INTERVAL = 30

        def self.build(config:, store:, on_fatal: nil)
          new(config: config, store: store, on_fatal: on_fatal) unless store.layout.plain?
        end

        # interval: seconds between sweeps (tests shorten it).
        def initialize(config:, store:, on_fatal: nil, interval: INTERVAL)
          super("retired-sweep", logger: config.logger, on_fatal: on_fatal, interval: interval, what: "sweep of retired queue tags")
          @sweep = Store::Tags::RetiredSweep.new(store)
        end

        def sweep
          moved = @sweep.call
          moved.each do |queue, count|
            @logger.warn("#{count} job(s) of queue #{queue} were pushed under a tag the queue moved away from, by a process " \
              "that does not follow queue moves (an earlier Deckhand?); moved to its current tag. Upgrade every process that pushes")
          end
          moved
        end

        private

        def tick = sweep
      end
    end
  end
end
