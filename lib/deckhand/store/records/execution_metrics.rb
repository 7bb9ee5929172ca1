# frozen_string_literal: true

require_relative "execution_metrics/histogram"
require_relative "execution_metrics/tally"
require_relative "execution_metrics/sidekiq_layout"
require_relative "execution_metrics/sidekiq8_layout"
require_relative "../scripts/metrics/metrics_totals"
require_relative "../scripts/metrics/metrics_series"

module Deckhand
  class Store # :nodoc:
    module Records
      # Per-class execution metrics in Redis, written by each server process once
      # per heartbeat from its in-memory Tally, read by the data API.
      #
      #   tally = Deckhand::Store::Records::ExecutionMetrics::Tally.new
      #   tally.record("WelcomeJob", 12.5, false)              # per job, in memory
      #   store.pipelined { |pipe| Deckhand::Store::Records::ExecutionMetrics.flush(pipe, tally.take) }  # per heartbeat
      #
      # Layout: one hash per UTC minute (kept 72 hours), per hour (72 hours, so long
      # ranges read 72 hashes instead of 4,320) and per day (a year). In each, for
      # every job class that ran:
      #
      #   "<class>|c"    executions            "<class>|ms"   total execution time, ms
      #   "<class>|f"    failures among them   "<class>|h<i>" executions in histogram bucket i
      #   "<class>|fms"  the failures' ms      "<class>|fh<i>" failures in histogram bucket i
      #
      # "|c", "|ms" and "|h<i>" count every execution, as they always have; the
      # failures' own fields let a reader take them out, so successes' and
      # failures' timings read apart (a hash written before they existed holds
      # none, and reads as it did: every execution together).
      #
      # Fields end in the last "|", so a class name holding "|" still reads back.
      module ExecutionMetrics # :nodoc:
        PREFIX = Layout::Plain::METRICS
        MINUTE_TTL = 72 * 3600
        HOUR_TTL = 73 * 3600
        DAY_TTL = 366 * 86_400

        module_function

        # prefix: PREFIX, or the keys' METRICS (store.layout::METRICS), which in
        # cluster mode puts every metrics hash in one slot for the scripts that
        # read a period's hashes together.
        def minute_key(time, prefix = PREFIX) = Layout::Untagged.metrics_minute(prefix, time)

        def hour_key(time, prefix = PREFIX) = Layout::Untagged.metrics_hour(prefix, time)

        def day_key(time, prefix = PREFIX) = Layout::Untagged.metrics_day(prefix, time)

        SIDEKIQ_LAYOUTS = {7 => Records::ExecutionMetrics::SidekiqLayout, 8 => Records::ExecutionMetrics::Sidekiq8Layout}.freeze

        # Queues the writes for one flush on a pipeline. aggregates is what
        # Tally#take returns: {class => [count, failed, total_ms, {bucket => n}]}.
        # sidekiq: the Sidekiq versions whose metrics layouts are written too
        # (a server's heartbeat passes Config::FleetVersions#sidekiq_metrics).
        def flush(pipe, aggregates, now: Time.now, prefix: PREFIX, sidekiq: SIDEKIQ_LAYOUTS.keys)
          return if aggregates.empty?
          [[minute_key(now, prefix), MINUTE_TTL], [hour_key(now, prefix), HOUR_TTL], [day_key(now, prefix), DAY_TTL]].each do |key, ttl|
            aggregates.each { |klass, totals| increment(pipe, key, klass, *totals) }
            pipe.call("EXPIRE", key, ttl)
          end
          sidekiq.each { |version| SIDEKIQ_LAYOUTS.fetch(version).flush(pipe, aggregates, now: now) }
        end

        # The same in one round trip of its own (code that tallies outside a
        # server's heartbeat), with the failures per error class (Tally#take_errors)
        # where the heartbeat writes them (ErrorMetrics).
        def write(store, aggregates, now: Time.now, sidekiq: SIDEKIQ_LAYOUTS.keys, errors: {})
          return if aggregates.empty? && errors.empty?
          store.pipelined do |pipe|
            flush(pipe, aggregates, now: now, prefix: store.layout::METRICS, sidekiq: sidekiq)
            ErrorMetrics.flush(pipe, errors, now: now, prefix: store.layout::METRICS)
          end
        end

        def increment(pipe, key, klass, count, failed, total_ms, histogram, failed_ms = 0.0, failed_histogram = {})
          pipe.call("HINCRBY", key, "#{klass}|c", count)
          pipe.call("HINCRBYFLOAT", key, "#{klass}|ms", total_ms.round(3))
          histogram.each { |bucket, n| pipe.call("HINCRBY", key, "#{klass}|h#{bucket}", n) }
          return unless failed.positive?
          pipe.call("HINCRBY", key, "#{klass}|f", failed)
          pipe.call("HINCRBYFLOAT", key, "#{klass}|fms", failed_ms.round(3))
          failed_histogram.each { |bucket, n| pipe.call("HINCRBY", key, "#{klass}|fh#{bucket}", n) if n.positive? }
        end

        # The classes that ran in any of the day hashes `days` (their "|c"
        # fields), in one round trip: a day's hash names every class of its
        # minutes, so a reader asks the minutes for just these classes' fields.
        def classes_in(store, days)
          return [] if days.empty?
          store.pipelined { |pipe| days.each { |key| pipe.call("HKEYS", key) } }
            .flatten.filter_map { |field| field.delete_suffix("|c") if field.end_with?("|c") }.uniq
        end

        # Splits a field into [class, kind, bucket]: kind is "c", "f", "ms",
        # "fms", "h" or "fh" (the histograms with their bucket).
        def parse_field(field)
          klass, _, kind = field.rpartition("|")
          return [klass, "h", kind[1..].to_i] if kind.start_with?("h")
          return [klass, "fh", kind[2..].to_i] if kind.start_with?("fh")
          [klass, kind, nil]
        end
      end
    end
  end
end

# ErrorMetrics keeps its hashes as long as this module's (MINUTE_TTL, HOUR_TTL).
require_relative "error_metrics"
