# frozen_string_literal: true

require "deckhand/store/execution_metrics"

module Sidekiq
  module Metrics
    # Sidekiq's histogram of one class's execution times, per minute, in
    # drop-in mode: times counted into Sidekiq's 26 buckets in memory, then
    # added to the BITFIELD where Sidekiq's Metrics tab reads them (the
    # layout a Deckhand server also writes, from its own finer histogram).
    # The connection Sidekiq passes is not used: the histogram is written to
    # and read from the configuration's Redis (the Client.via block's inside one).
    #
    #   histogram = Sidekiq::Metrics::Histogram.new("ReportJob")
    #   histogram.record_time(48)                  # ms
    #   Sidekiq.redis { |conn| histogram.persist(conn) }   # => "ReportJob-22-22:3", the counts zeroed
    #   Sidekiq.redis { |conn| histogram.fetch(conn) }     # => [0, 0, 0, 1, 0, ...] (26 counts)
    class Histogram
      include Enumerable

      LAYOUT = Deckhand::Store::ExecutionMetrics::SidekiqLayout
      private_constant :LAYOUT

      def initialize(klass)
        @klass = klass
        @buckets = Array.new(LAYOUT::LAST + 1, 0)
        @lock = Mutex.new
      end

      def each(&) = @lock.synchronize { @buckets.dup }.each(&)

      def record_time(ms)
        bucket = LAYOUT.search(ms)
        @lock.synchronize { @buckets[bucket] += 1 }
      end

      def sum = @lock.synchronize { @buckets.sum }

      # Adds the counts to the minute of `now` and starts again from zero;
      # returns the key.
      def persist(_conn, now = Time.now)
        counts = @lock.synchronize { @buckets.each_with_index.to_h { |n, bucket| [bucket, n] }.tap { @buckets.fill(0) } }
        key = LAYOUT.histogram_key(@klass, now)
        LAYOUT.add_histogram(store, key, counts)
        key
      end

      def fetch(_conn, now = Time.now) = LAYOUT.read_histogram(store, LAYOUT.histogram_key(@klass, now))

      private

      def store = Deckhand::Client.current_config.store
    end
  end
end
