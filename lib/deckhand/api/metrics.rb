# frozen_string_literal: true

require_relative "class_metrics"

module Deckhand
  class API
    # Per-class execution metrics over a period, from the layout in
    # Store::Metrics: minute hashes for the last hours, hour hashes for the
    # last days, day hashes for the last year.
    #
    #   metrics = api.metrics(period: "24h")
    #   metrics.classes                # => [ClassMetrics, ...] most total time first
    #   metrics.series("ReportJob")    # => one ClassMetrics per hour, oldest first
    class Metrics
      PERIODS = {
        "1h" => [:minute, 60], "4h" => [:minute, 240], "24h" => [:hour, 24],
        "72h" => [:hour, 72], "30d" => [:day, 30], "365d" => [:day, 365]
      }.freeze
      STEP = {minute: 60, hour: 3600, day: 86_400}.freeze
      HISTOGRAM = (0..Store::Metrics::Histogram::LAST).to_a.freeze

      attr_reader :period, :times

      def initialize(config, period: "1h", now: Time.now)
        @store = config.store
        @period = PERIODS.key?(period) ? period : "1h"
        unit, points = PERIODS.fetch(@period)
        start = align(now.utc, unit) - (STEP[unit] * (points - 1))
        @times = Array.new(points) { |i| start + (STEP[unit] * i) }
        @keys = @times.map { |time| Store::Metrics.public_send(:"#{unit}_key", time) }
      end

      # Totals per class over the whole period, the classes that took the most
      # time first.
      def classes
        totals = {}
        hashes = @store.pipelined { |pipe| @keys.each { |key| pipe.call("HGETALL", key) } }
        hashes.each do |hash|
          hash.each do |field, value|
            klass, kind, bucket = Store::Metrics.parse_field(field)
            (totals[klass] ||= ClassMetrics.new(klass)).add(kind, bucket, value)
          end
        end
        totals.values.sort_by { |m| [-m.total_ms, m.name] }
      end

      # One ClassMetrics per minute, hour or day of the period, oldest first.
      def series(klass)
        fields = ["#{klass}|c", "#{klass}|f", "#{klass}|ms", *HISTOGRAM.map { |b| "#{klass}|h#{b}" }]
        rows = @store.pipelined { |pipe| @keys.each { |key| pipe.call("HMGET", key, *fields) } }
        @times.zip(rows).map do |time, (count, failed, ms, *buckets)|
          point = ClassMetrics.new(klass, time: time)
          point.add("c", nil, count)
          point.add("f", nil, failed)
          point.add("ms", nil, ms)
          buckets.each_with_index { |n, bucket| point.add("h", bucket, n) if n }
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
