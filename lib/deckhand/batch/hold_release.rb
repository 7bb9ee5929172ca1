# frozen_string_literal: true

require_relative "../component"
require_relative "ops"

module Deckhand
  class Batch
    # Lets go of the holds a write took (Batch::Writer), once its jobs are
    # out. Redis refusing that (a key of the wrong type, READONLY, OOM, a
    # dropped connection) must not fail the write: the jobs are queued, and
    # an application told otherwise pushes them again, while a batch left
    # held never completes. So each release is tried again for `patience`
    # seconds, then on a thread of its own until Redis takes it.
    #
    #   HoldRelease.new(config).call(bids)   # in order: children first
    class HoldRelease # :nodoc:
      PATIENCE = 5.0 # seconds the writing thread waits for Redis
      DELAYS = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0].freeze

      def initialize(config, patience: PATIENCE)
        @config = config
        @patience = patience
      end

      def call(bids)
        deadline = Monotonic.now + @patience
        left = bids.dup
        attempt = 0
        until left.empty?
          begin
            Ops.script(@config).release(left.first)
            left.shift
            attempt = 0
          rescue Deckhand::RedisError => e
            delay = DELAYS[[attempt, DELAYS.size - 1].min]
            attempt += 1
            break later(left, e) if Monotonic.now + delay > deadline
            sleep delay
          end
        end
        nil
      end

      private

      def later(bids, error)
        logger = @config.logger
        logger.warn("batch #{bids.join(", ")}: its jobs are queued, but Redis refused to let go of the batch's hold " \
          "(#{error.message}); it is let go in the background once Redis takes it, and the batch completes only then")
        Component.errand("batch-release", logger: logger) do
          bids.each do |bid|
            attempt = 0
            begin
              Ops.script(@config).release(bid)
            rescue Deckhand::RedisError
              sleep DELAYS[[attempt += 1, DELAYS.size - 1].min]
              retry
            end
          end
          logger.info("batch #{bids.join(", ")}: its hold is let go")
        end
      end
    end
  end
end
