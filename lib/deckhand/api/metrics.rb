# frozen_string_literal: true

require_relative "class_metrics"

module Deckhand
  class API
    # Per-class execution metrics over a period, from the layout in
    # Store::Records::ExecutionMetrics: minute hashes for the last hours, hour hashes for the
    # last days, day hashes for the last year.
    #
    #   metrics = api.metrics(period: "24h")
    #   metrics.classes                # => [ClassMetrics, ...] most total time first
    #   metrics.series("ReportJob")    # => one ClassMetrics per hour, oldest first
    class Metrics
      # Each period a Metrics may cover: the hashes it reads and how many.
      PERIODS = {
        "1h" => [:minute, 60], "4h" => [:minute, 240], "24h" => [:hour, 24],
        "72h" => [:hour, 72], "30d" => [:day, 30], "365d" => [:day, 365]
      }.freeze
      # Seconds each kind of hash covers.
      STEP = {minute: 60, hour: 3600, day: 86_400}.freeze
      # The buckets of the execution time histogram.
      HISTOGRAM = (0..Store::Records::ExecutionMetrics::Histogram::LAST).to_a.freeze
      # What a class's chart reads from each hash: [kind, bucket] per field;
      # the failures' histogram (GUARDED) only where the hash counts failures
      # and executions in that bucket.
      SERIES_FIELDS = [["c", nil], ["f", nil], ["ms", nil], ["fms", nil], *HISTOGRAM.map { |b| ["h", b] }].freeze
      # The failures' histogram fields, read only where a hash counts failures apart.
      GUARDED = HISTOGRAM.map { |b| ["fh", b] }.freeze
      GATE = 2 # the position of "f" in SERIES_FIELDS
      READ = (SERIES_FIELDS + GUARDED).freeze # by the 1-based position the script answers with

      # keys: the metrics hashes of the period, oldest first, one per time;
      # step: the seconds each covers.
      attr_reader :period, :times, :keys, :step

      def initialize(config, period: "1h", now: Time.now)
        @store = config.store
        @period = PERIODS.key?(period) ? period : "1h"
        unit, points = PERIODS.fetch(@period)
        start = align(now.utc, unit) - (STEP[unit] * (points - 1))
        @times = Array.new(points) { |i| start + (STEP[unit] * i) }
        @step = STEP[unit]
        @keys = @times.map { |time| Store::Records::ExecutionMetrics.public_send(:"#{unit}_key", time, @store.layout::METRICS) }
      end

      # Totals per class over the whole period, the classes that took the most
      # time first, each with its executions per point (ClassMetrics#timeline).
      # Summed inside Redis (store/scripts/metrics/metrics_totals.lua): a few hundred
      # numbers come back instead of every field of every hash.
      def classes
        sums, lines = Store::Scripts::MetricsTotals.new(@store).call(@keys)
        totals = {}
        sums.each_slice(2) do |field, value|
          klass, kind, bucket = Store::Records::ExecutionMetrics.parse_field(field)
          (totals[klass] ||= ClassMetrics.new(klass)).add(kind, bucket, value)
        end
        lines.each_slice(2) { |klass, counts| totals[klass]&.timeline&.replace(counts.split(",").map(&:to_i)) }
        totals.values.sort_by { |m| [-m.total_ms, m.name] }
      end

      # One ClassMetrics per minute, hour or day of the period, oldest first.
      def series(klass)
        fields = SERIES_FIELDS.map { |kind, bucket| "#{klass}|#{kind}#{bucket}" }
        guarded = GUARDED.map { |_, bucket| [SERIES_FIELDS.index(["h", bucket]) + 1, "#{klass}|fh#{bucket}"] }
        rows = Store::Scripts::MetricsSeries.new(@store).call(@keys, fields, gate: GATE, guarded: guarded)
        @times.zip(rows).map do |time, row|
          point = ClassMetrics.new(klass, time: time)
          row.split(",").each do |pair|
            index, value = pair.split("=", 2)
            kind, bucket = READ[index.to_i - 1]
            point.add(kind, bucket, value)
          end
          point
        end
      end

      private

      def align(time, unit)
        case unit
        when :minute then Time.utc(time.year, time.month, time.day, time.hour, time.min)
        when :hour then Time.utc(time.year, time.month, time.day, time.hour)
        else Time.utc(time.year, time.month, time.day)
        end
      end
    end
  end
end
