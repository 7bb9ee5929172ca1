# frozen_string_literal: true

require "deckhand/store/records/execution_metrics"

module Sidekiq
  module Metrics
    # Sidekiq's histogram of one class's execution times in drop-in mode:
    # 26 counters, one per bucket of Sidekiq's (up to 20 ms, 30 ms, ...,
    # 335 s, and the rest), counted in memory, then added per class and
    # minute where the version drop-in mode stands in for keeps them
    # (Sidekiq 8: "h|<class>-<D>-<H>:<M>"; 7.3: "<class>-<DD>-<HH>:<M>"), as
    # Deckhand's servers write them beside their own finer histogram. The
    # connection Sidekiq passes is not used: the histogram is written to and
    # read from the configuration's Redis (the Client.via block's inside one).
    #
    #   histogram = Sidekiq::Metrics::Histogram.new("ReportJob")
    #   histogram.record_time(42)                   # ms
    #   Sidekiq.redis { |conn| histogram.persist(conn) }   # => "h|ReportJob-22-22:3", the counts zeroed
    #   Sidekiq.redis { |conn| histogram.fetch(conn) }     # => [0, 0, 1, 0, ...] this minute's counters
    class Histogram
      include Enumerable

      LAYOUT = Deckhand::Store::Records::ExecutionMetrics::SidekiqLayout
      private_constant :LAYOUT

      # The upper bound (ms) of each bucket; the last takes the rest.
      BUCKET_INTERVALS = [*LAYOUT::BUCKETS_MS, 1e20].freeze
      LABELS = BUCKET_INTERVALS.each_with_index.map do |ms, index|
        next "Slow" if index == LAYOUT::LAST
        (ms < 1000) ? "#{ms}ms" : "#{(ms / 1000.0).to_s.delete_suffix(".0")}s"
      end.freeze

      def initialize(klass)
        @klass = klass.to_s
        @buckets = Array.new(BUCKET_INTERVALS.size, 0)
        @lock = Mutex.new
      end

      # A copy of the counters.
      def buckets = @lock.synchronize { @buckets.dup }

      def each(&) = buckets.each(&)

      def label(index) = LABELS[index]

      def record_time(ms)
        bucket = LAYOUT.search(ms)
        @lock.synchronize { @buckets[bucket] += 1 }
      end

      def sum = buckets.sum

      # Adds the counters to the minute of `now` and starts over from zero;
      # returns the key.
      def persist(_conn, now = Time.now)
        counts = @lock.synchronize { @buckets.each_with_index.to_h { |n, bucket| [bucket, n] }.tap { @buckets.fill(0) } }
        key = key(now)
        LAYOUT.add_histogram(store, key, counts)
        key
      end

      # This minute's counters in Redis.
      def fetch(_conn, now = Time.now) = LAYOUT.read_histogram(store, key(now))

      private

      def store = Deckhand::Client.current_config.store

      def key(now) = Deckhand::Store::Records::ExecutionMetrics::SIDEKIQ_LAYOUTS.fetch(Deckhand::DropIn.version.metrics_layout).histogram_key(@klass, now)
    end
  end
end
