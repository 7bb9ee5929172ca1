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
      # The counts, in the order #to_h gives them.
      FIELDS = %i[processed failed enqueued busy processes scheduled retries dead expired].freeze

      # @return [Integer] jobs run successfully, all time
      attr_reader :processed
      # @return [Integer] job runs that failed, all time
      attr_reader :failed
      # @return [Integer] jobs waiting in all queues
      attr_reader :enqueued
      # @return [Integer] jobs running now, over every live process
      attr_reader :busy
      # @return [Integer] live server processes
      attr_reader :processes
      # @return [Integer] jobs in the schedule
      attr_reader :scheduled
      # @return [Integer] jobs waiting for a retry
      attr_reader :retries
      # @return [Integer] jobs in the dead set
      attr_reader :dead
      # @return [Integer] jobs dropped unstarted (expires_in), all time
      attr_reader :expired

      def initialize(config)
        @processed, @failed, @enqueued, @busy, @processes, @scheduled, @retries, @dead, @expired =
          Store::Records::StatCounters.totals(config.store, lists: config.partitions.method(:names)).values_at(*FIELDS)
      end

      # The counts as a Hash, for JSON.
      def to_h = FIELDS.to_h { |field| [field, public_send(field)] }
    end
  end
end
