# frozen_string_literal: true

require_relative "work_state"

module Sidekiq
  class Processor
    # Sidekiq's thread-safe tally (Processor::PROCESSED, FAILURE): a
    # Sidekiq::Launcher's heartbeat adds what it counted to the stats.
    #
    #   Sidekiq::Processor::PROCESSED.incr
    #   Sidekiq::Processor::PROCESSED.reset   # => 1, and back to 0
    class Counter
      def initialize
        @value = 0
        @lock = Mutex.new
      end

      def incr(amount = 1) = @lock.synchronize { @value += amount }

      def reset
        @lock.synchronize do
          value = @value
          @value = 0
          value
        end
      end
    end

    PROCESSED = Counter.new
    FAILURE = Counter.new
    # The jobs this process runs (Deckhand::DropIn::WorkState).
    WORK_STATE = Deckhand::DropIn::WorkState.new
  end
end
