# frozen_string_literal: true

require_relative "metrics"
require_relative "../store/records/error_metrics"

module Deckhand
  class API
    # Failed executions per error class over a period, a point a minute
    # over "1h" and "4h", an hour over "24h" and "72h"
    # (Store::Records::ErrorMetrics): the classes with the most failures,
    # the rest added up as one.
    #
    #   failures = api.failures_by_error(period: "24h")
    #   failures.times                 # => [Time, ...] oldest first
    #   failures.series                # => [["Net::ReadTimeout", [0, 3, ...]], ["KeyError", [...]], [nil, [...]]]
    #   failures.empty?                # => true when nothing failed (or nothing was recorded yet)
    class FailuresByError
      # Error classes shown apart; the others are one series named nil.
      SHOWN = 3 # the dashboard has four colours: three classes and the rest

      attr_reader :period, :times, :series

      def initialize(config, period: "1h", now: Time.at(config.store.clock.now))
        store = config.store
        metrics = Metrics.new(config, period: Throughput::PERIODS.include?(period) ? period : "1h", now: now)
        @period = metrics.period
        @times = metrics.times
        unit = (metrics.step == 60) ? :minute_key : :hour_key
        points = Store::Records::ErrorMetrics.read(store, @times.map { |time| Store::Records::ErrorMetrics.public_send(unit, time, store.layout::METRICS) })
        totals = points.each_with_object(Hash.new(0)) { |point, sum| point.each { |error, n| sum[error] += n } }
        shown = totals.sort_by { |error, n| [-n, error] }.first(SHOWN).map(&:first)
        @series = shown.map { |error| [error, points.map { |point| point.fetch(error, 0) }] }
        rest = points.map { |point| point.sum { |error, n| shown.include?(error) ? 0 : n } }
        @series << [nil, rest] if rest.any?(&:positive?)
        @series.freeze
      end

      # True when nothing failed in the period (or nothing was recorded yet).
      def empty? = @series.empty?
    end
  end
end
