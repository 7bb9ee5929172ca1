# frozen_string_literal: true

module Deckhand
  class Store
    module Metrics
      # The same per-class metrics, also written where Sidekiq 7's Metrics tab
      # reads them, so a fleet mixing both shows Deckhand's work there too
      # (layout facts from Sidekiq 7.3's metrics, kept 8 hours as it does):
      #
      #   j|<YYYYMMDD>|<H>:<M>     hash per UTC minute (hour and minute unpadded):
      #                            "<class>|p" executions, "<class>|f" failures,
      #                            "<class>|ms" total ms of the successful ones
      #   <class>-<DD>-<H>:<M>     BITFIELD of 26 u16 counters: successful
      #                            executions per duration bucket (BUCKETS_MS)
      #
      #   SidekiqLayout.bucket(12.5)  # => 0 (under 20 ms)
      #   SidekiqLayout.flush(pipe, {"WelcomeJob" => [count, failed, ms, hist, ok_ms, {0 => 3}]})
      module SidekiqLayout
        TTL = 8 * 60 * 60
        # Upper bounds (ms) of Sidekiq's histogram buckets; the last catches the rest.
        BUCKETS_MS = [20, 30, 45, 65, 100, 150, 225, 335, 500, 750, 1100, 1700, 2500, 3800, 5750,
          8500, 13_000, 20_000, 30_000, 45_000, 65_000, 100_000, 150_000, 225_000, 335_000].freeze

        module_function

        def bucket(ms) = BUCKETS_MS.bsearch_index { |bound| ms < bound } || BUCKETS_MS.size

        def minute_key(time) = "j|#{time.utc.strftime("%Y%m%d")}|#{time.utc.hour}:#{time.utc.min}"

        def histogram_key(klass, time) = "#{klass}-#{time.utc.strftime("%d")}-#{time.utc.hour}:#{time.utc.min}"

        def flush(pipe, aggregates, now: Time.now)
          key = minute_key(now)
          aggregates.each do |klass, (count, failed, _ms, _histogram, ok_ms, buckets)|
            pipe.call("HINCRBY", key, "#{klass}|p", count)
            pipe.call("HINCRBY", key, "#{klass}|f", failed) if failed.positive?
            pipe.call("HINCRBY", key, "#{klass}|ms", ok_ms.round) if count > failed
            histogram(pipe, histogram_key(klass, now), buckets) unless buckets.empty?
          end
          pipe.call("EXPIRE", key, TTL)
        end

        def histogram(pipe, key, buckets)
          increments = buckets.flat_map { |index, n| ["INCRBY", "u16", "##{index}", n] }
          pipe.call("BITFIELD", key, "OVERFLOW", "SAT", *increments)
          pipe.call("EXPIRE", key, TTL)
        end
      end
    end
  end
end
