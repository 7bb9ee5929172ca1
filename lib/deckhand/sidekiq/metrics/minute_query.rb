# frozen_string_literal: true

require "time"
require "date"
require "deckhand/api"
require_relative "minute_results"
require_relative "../../store/records/execution_metrics"
require_relative "../../store/records/deploy_marks"

module Sidekiq
  module Metrics
    # Sidekiq 7.3's metrics query (Sidekiq::Metrics::Query when drop-in mode
    # stands in for Sidekiq 7), over Deckhand's per-class
    # metrics (Deckhand::API::Metrics): executions ("p", failures included),
    # failures ("f") and execution time ("ms", and "s" in seconds) per class
    # and minute, for the last `minutes` (up to 240, what Deckhand keeps by
    # the minute).
    #
    #   result = Sidekiq::Metrics::MinuteQuery.new.top_jobs(class_filter: /Report/)
    #   result.buckets                                  # => ["21:04", ..., "22:03"]
    #   result.job_results["ReportJob"].totals["p"]     # => 120
    #   result.job_results["ReportJob"].series["ms"]    # => {"21:04" => 1530, ...}
    #
    # A job's `hist` holds, per minute, the executions in each of Sidekiq's 26
    # duration buckets, the slowest first, as Sidekiq's does (failures
    # included); `marks` holds the deploy marks of the period
    # (Sidekiq::Deploy.mark!).
    class MinuteQuery
      MAX_MINUTES = 240

      def initialize(pool: nil, now: Time.now)
        config = pool ? Deckhand::Client::Target.for(pool, "Sidekiq::Metrics::Query.new(pool:)").config_for(Deckhand.config) : Deckhand.config
        @api = Deckhand::API.new(config)
        @now = now.utc
      end

      # Every class's metrics over the last `minutes` (or those whose name
      # matches `class_filter`).
      def top_jobs(class_filter: nil, minutes: 60)
        metrics = period(minutes)
        names = metrics.classes.map(&:name)
        names = names.grep(class_filter) if class_filter
        build(metrics, minutes, names)
      end

      # One class's metrics over the last `minutes`, with its histograms.
      def for_job(klass, minutes: 60) = build(period(minutes), minutes, [klass.to_s], histograms: true)

      private

      def period(minutes)
        unless minutes.is_a?(Integer) && minutes.between?(1, MAX_MINUTES)
          raise ArgumentError, "minutes must be an Integer from 1 to #{MAX_MINUTES} (Deckhand keeps metrics by the minute for 4 hours), got #{minutes.inspect}"
        end
        Deckhand::API::Metrics.new(@api.config, period: (minutes <= 60) ? "1h" : "4h", now: @now)
      end

      def build(metrics, minutes, names, histograms: false)
        result = Result.new
        metrics.times.last(minutes).each { |time| result.add_bucket(time) }
        names.each do |name|
          job = result.job_results[name]
          metrics.series(name).last(minutes).each do |point|
            job.add_metric("p", point.time, point.count)
            job.add_metric("f", point.time, point.failed) if point.failed.positive?
            job.add_metric("ms", point.time, point.total_ms.round)
            job.hist[point.time.strftime("%H:%M")] = histogram(point) if histograms
          end
        end
        add_marks(result)
        result
      end

      def add_marks(result)
        return unless result.starts_at
        (result.starts_at.to_date..result.ends_at.to_date).each do |date|
          Deckhand::Store::Records::DeployMarks.day(@api.config.store, date).sort.each do |stamp, label|
            time = Time.iso8601(stamp)
            result.marks << MarkResult.new(time, label) if time.between?(result.starts_at, result.ends_at)
          end
        end
      end

      # Sidekiq's layout: its 26 buckets, the slowest first (derived from
      # Deckhand's finer buckets, Store::Records::ExecutionMetrics::SidekiqLayout).
      def histogram(point)
        counts = Deckhand::Store::Records::ExecutionMetrics::SidekiqLayout.histogram_of(point.histogram)
        (0..Deckhand::Store::Records::ExecutionMetrics::SidekiqLayout::LAST).map { |bucket| counts[bucket] }.reverse
      end
    end
  end
end
