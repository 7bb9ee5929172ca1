# frozen_string_literal: true

module Deckhand
  class API
    # The numbers at the top of the dashboard, read in two round trips.
    #
    #   stats = api.stats
    #   stats.processed   # => 1_204_113 (all time)
    #   stats.enqueued    # => jobs waiting in all queues
    #   stats.expired     # => jobs dropped unstarted (expires_in), all time
    #   stats.to_h        # => for JSON
    class Stats
      FIELDS = %i[processed failed enqueued busy processes scheduled retries dead expired].freeze

      attr_reader(*FIELDS)

      def initialize(config)
        @processed, @failed, @enqueued, @busy, @processes, @scheduled, @retries, @dead, @expired =
          Store::Records::StatCounters.totals(config.store, lists: config.partitions.method(:names)).values_at(*FIELDS)
      end

      def to_h = FIELDS.to_h { |field| [field, public_send(field)] }
    end
  end
end
