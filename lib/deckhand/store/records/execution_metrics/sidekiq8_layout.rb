# frozen_string_literal: true

require_relative "sidekiq_layout"

module Deckhand
  class Store
    module Records
      module ExecutionMetrics
        # The per-class metrics where Sidekiq 8's Metrics tab and
        # Sidekiq::Metrics::Query read them (layout facts from Sidekiq 8.1's
        # metrics), so a fleet mixing both shows Deckhand's work there too:
        #
        #   j|<YYMMDD>|<H>:<MM>      hash per UTC minute (hour unpadded, minute
        #                            zero-padded), kept 8 hours: "<class>|p"
        #                            executions, "|f" failures, "|ms" total ms
        #                            of the successful ones
        #   j|<YYMMDD>|<H>:<M>       the same per 10 minutes (the minute's tens
        #                            digit: "8:4" is 08:40 to 08:49), kept 72 hours
        #   h|<class>-<D>-<H>:<M>    BITFIELD of 26 u16 counters, per UTC
        #                            minute (all unpadded), kept 8 hours: the
        #                            successful executions per duration bucket
        #
        # Written from the Tally on each heartbeat beside Sidekiq 7's layout or
        # in its place (Config::FleetVersions#sidekiq_metrics); the counts and
        # the histogram are SidekiqLayout's, only the keys differ.
        #
        #   Sidekiq8Layout.flush(pipe, tally.take)
        #   Sidekiq8Layout.minute_key(Time.utc(2025, 2, 14, 8, 43))   # => "j|250214|8:43"
        #   Sidekiq8Layout.rollup_key(Time.utc(2025, 2, 14, 8, 43))   # => "j|250214|8:4"
        module Sidekiq8Layout # :nodoc:
          MINUTE_TTL = 8 * 60 * 60
          # The hashes a flush adds each class's counts to: a minute's and 10 minutes'.
          HASHES = 2
          ROLLUP_TTL = 72 * 60 * 60

          module_function

          def minute_key(time) = time.utc.strftime("j|%y%m%d|%-H:%M")

          def rollup_key(time) = minute_key(time).chop

          def histogram_key(klass, time) = "h|#{klass}-#{time.utc.strftime("%-d-%-H:%-M")}"

          # The fields of each hash, in one round trip: every field, or the
          # `fields` named ([nil, ...] where a hash lacks one).
          def read(store, keys, fields: nil)
            store.pipelined do |pipe|
              keys.each { |key| fields ? pipe.call("HMGET", key, *fields) : pipe.call("HGETALL", key) }
            end
          end

          # The histograms of `klass` at `times`, in one round trip.
          def read_histograms(store, klass, times)
            store.pipelined { |pipe| times.each { |time| Records::ExecutionMetrics::SidekiqLayout.read_histogram(pipe, histogram_key(klass, time)) } }
          end

          def flush(pipe, aggregates, now: Time.now)
            [[minute_key(now), MINUTE_TTL], [rollup_key(now), ROLLUP_TTL]].each do |key, ttl|
              aggregates.each { |klass, totals| Records::ExecutionMetrics::SidekiqLayout.count(pipe, key, klass, *totals) }
              pipe.call("EXPIRE", key, ttl)
            end
            aggregates.each do |klass, totals|
              successes = Records::ExecutionMetrics::SidekiqLayout.successes_histogram(*totals)
              Records::ExecutionMetrics::SidekiqLayout.write_histogram(pipe, histogram_key(klass, now), successes) if successes
            end
          end
        end
      end
    end
  end
end
