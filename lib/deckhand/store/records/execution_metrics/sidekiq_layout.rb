# frozen_string_literal: true

require_relative "histogram"

module Deckhand
  class Store
    module Records
      module ExecutionMetrics
        # The same per-class metrics, also written where Sidekiq 7's Metrics tab
        # reads them, so a fleet mixing both shows Deckhand's work there too
        # (layout facts from Sidekiq 7.3's metrics, kept 8 hours as it does;
        # Sidekiq 8's are Sidekiq8Layout):
        #
        #   j|<YYYYMMDD>|<H>:<M>     hash per UTC minute (hour and minute unpadded):
        #                            "<class>|p" executions, "<class>|f" failures,
        #                            "<class>|ms" total ms of the successful ones
        #   <class>-<DD>-<HH>:<M>    BITFIELD of 26 u16 counters: successful
        #                            executions per duration bucket (BUCKETS_MS);
        #                            here the hour is zero-padded, the minute not
        #
        # Written from the Tally on each heartbeat; nothing more is done per job.
        # Sidekiq's histogram is derived from Deckhand's finer one (eight buckets
        # per decade): where one of Deckhand's buckets holds a bound of Sidekiq's,
        # its count is split between the two sides in proportion to their
        # (logarithmic) widths, so a bar near a bound is an estimate.
        #
        #   SidekiqLayout.flush(pipe, tally.take)
        #   SidekiqLayout.histogram_of({17 => 3})   # => {0 => 3} (13.3 ms and under: "20ms")
        module SidekiqLayout # :nodoc:
          TTL = 8 * 60 * 60
          # The hashes a flush adds each class's counts to: the minute's.
          HASHES = 1
          # Upper bounds (ms) of Sidekiq's histogram buckets; the last catches the rest.
          BUCKETS_MS = [20, 30, 45, 65, 100, 150, 225, 335, 500, 750, 1100, 1700, 2500, 3800, 5750,
            8500, 13_000, 20_000, 30_000, 45_000, 65_000, 100_000, 150_000, 225_000, 335_000].freeze
          LAST = BUCKETS_MS.size

          module_function

          # Sidekiq's bucket of a duration.
          def search(ms) = BUCKETS_MS.bsearch_index { |bound| ms < bound } || LAST

          # For each of Deckhand's buckets: [Sidekiq bucket of its low end, the
          # share of it below the Sidekiq bound it holds (1.0 when none)]. No
          # Deckhand bucket (a factor 1.33 wide) holds two of Sidekiq's bounds
          # (a factor 1.44 apart at least).
          SPLITS = (0..Records::ExecutionMetrics::Histogram::LAST).map do |b|
            low = Records::ExecutionMetrics::Histogram.lower_bound(b)
            high = Records::ExecutionMetrics::Histogram.upper_bound(b)
            index = search(low)
            next [index, 1.0] if search(high) == index || low.zero?
            [index, Math.log(BUCKETS_MS[index] / low) / Math.log(high / low)]
          end.freeze

          def minute_key(time) = "j|#{time.utc.strftime("%Y%m%d")}|#{time.utc.hour}:#{time.utc.min}"

          def histogram_key(klass, time) = "#{klass}-#{time.utc.strftime("%d-%H:%-M")}"

          # Sidekiq's {bucket => n} from Deckhand's {bucket => n}.
          def histogram_of(deckhand)
            deckhand.each_with_object(Hash.new(0)) do |(bucket, n), sidekiq|
              index, share = SPLITS[bucket]
              below = (n * share).round
              sidekiq[index] += below if below.positive?
              sidekiq[index + 1] += n - below if n > below
            end
          end

          def flush(pipe, aggregates, now: Time.now)
            key = minute_key(now)
            aggregates.each do |klass, totals|
              count(pipe, key, klass, *totals)
              successes = successes_histogram(*totals)
              write_histogram(pipe, histogram_key(klass, now), successes) if successes
            end
            pipe.call("EXPIRE", key, TTL)
          end

          # A class's executions ("p"), failures ("f") and the successful
          # ones' ms ("ms"), in Sidekiq's fields of `key` (both versions').
          def count(pipe, key, klass, count, failed, ms, _histogram, failed_ms = 0.0, _failed_histogram = nil)
            pipe.call("HINCRBY", key, "#{klass}|p", count)
            pipe.call("HINCRBY", key, "#{klass}|f", failed) if failed.positive?
            pipe.call("HINCRBY", key, "#{klass}|ms", (ms - failed_ms).round) unless count == failed
          end

          # Sidekiq's histogram of the successful executions (it leaves the
          # failures out), or nil when every execution failed.
          def successes_histogram(count, failed, _ms, histogram, _failed_ms = 0.0, failed_histogram = {})
            return nil if count == failed
            histogram_of(histogram.to_h { |bucket, n| [bucket, n - failed_histogram.fetch(bucket, 0)] })
          end

          # Adds {bucket => n} to the histogram at `key` (drop-in mode's
          # Sidekiq::Metrics::Histogram#persist), in one round trip.
          def add_histogram(store, key, buckets) = store.pipelined { |pipe| write_histogram(pipe, key, buckets) }

          # How many fields `count` writes for a class in one hash (its
          # executions, its failures if any, its successes' ms if any).
          def field_count(count, failed) = 1 + (failed.positive? ? 1 : 0) + ((count > failed) ? 1 : 0)

          # The 26 counters of a histogram (`conn`: a store, or its pipeline).
          def read_histogram(conn, key) = conn.call("BITFIELD_RO", key, *(0..LAST).flat_map { |index| ["GET", "u16", "##{index}"] })

          def write_histogram(pipe, key, buckets)
            increments = buckets.flat_map { |index, n| n.positive? ? ["INCRBY", "u16", "##{index}", n] : [] }
            return if increments.empty?
            pipe.call("BITFIELD", key, "OVERFLOW", "SAT", *increments)
            pipe.call("EXPIRE", key, TTL)
          end
        end
      end
    end
  end
end
