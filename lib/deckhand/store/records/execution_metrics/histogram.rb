# frozen_string_literal: true

module Deckhand
  class Store
    module Records
      module ExecutionMetrics
        # Execution-time buckets: eight per decade from 0.1 ms to 1,000 s, so a
        # percentile read from them is within about 15% of the true value, and a
        # class needs only the handful of buckets its jobs fall in.
        #
        #   Histogram.bucket(12.5)                       # => 17
        #   Histogram.upper_bound(17)                    # => 13.34 (ms)
        #   Histogram.percentile({17 => 90, 27 => 10}, 0.95)  # => about 207 (ms)
        module Histogram # :nodoc:
          PER_DECADE = 8
          SMALLEST_MS = 0.1
          LAST = 7 * PER_DECADE + 1 # beyond 1,000 s

          module_function

          def bucket(ms)
            return 0 if ms <= SMALLEST_MS
            [(PER_DECADE * Math.log10(ms / SMALLEST_MS)).ceil, LAST].min
          end

          def upper_bound(bucket)
            return Float::INFINITY if bucket >= LAST
            SMALLEST_MS * (10**(bucket.to_f / PER_DECADE))
          end

          def lower_bound(bucket) = bucket.zero? ? 0.0 : upper_bound(bucket - 1)

          # The p-th quantile (0 < p <= 1) in ms of {bucket => count}, or nil when
          # empty; interpolated linearly inside the bucket it falls in.
          def percentile(counts, p)
            total = counts.sum { |_, n| n }
            return nil unless total.positive?
            target = p * total
            seen = 0
            counts.sort.each do |bucket, n|
              next unless n.positive?
              if seen + n >= target
                low = lower_bound(bucket)
                return low if bucket >= LAST
                return low + ((upper_bound(bucket) - low) * (target - seen) / n)
              end
              seen += n
            end
            lower_bound(counts.keys.max)
          end
        end
      end
    end
  end
end
