# frozen_string_literal: true

require "time"
require "date"
require_relative "rollup_results"
require_relative "../internals/metrics_histogram"
require_relative "../../store/records/execution_metrics"
require_relative "../../store/records/deploy_marks"

module Sidekiq
  module Metrics
    # Sidekiq 8's metrics query (Sidekiq::Metrics::Query when drop-in mode
    # stands in for Sidekiq 8), over the metrics Deckhand's servers and
    # Sidekiq::Metrics::ExecutionTracker write in Sidekiq 8's layout
    # (Store::Records::ExecutionMetrics::Sidekiq8Layout): per class, executions
    # ("p"), failures ("f") and the successful ones' time ("ms", and "s" in
    # seconds), by the minute for the last `minutes` (60 unless given, at
    # most 480) or by 10 minutes for the last `hours` (at most 72). Buckets
    # are named by their start, in ISO 8601.
    #
    #   result = Sidekiq::Metrics::RollupQuery.new.top_jobs(class_filter: /Report/)
    #   result.granularity                            # => :minutely
    #   result.job_results["ReportJob"].totals["p"]   # => 120
    #   result.job_results["ReportJob"].series["p"]   # => {"2026-11-29T10:03:00Z" => 2, ...}
    #   Sidekiq::Metrics::RollupQuery.new.for_job("ReportJob", hours: 24).granularity   # => :hourly
    #
    # for_job by the minute also gives each minute's `hist`: the successful
    # executions in each of Sidekiq's 26 duration buckets, the slowest
    # first. `marks` holds the deploy marks of the period (Sidekiq::Deploy.mark!).
    class RollupQuery
      LAYOUT = Deckhand::Store::Records::ExecutionMetrics::Sidekiq8Layout
      # granularity => [seconds per bucket, the layout's key for a time]
      ROLLUPS = {minutely: [60, :minute_key], hourly: [600, :rollup_key]}.freeze
      MAX_MINUTES = 480
      MAX_HOURS = 72

      def self.bkt_time_s(time, granularity)
        step = ROLLUPS.fetch(granularity).first
        Time.at(time.to_i - (time.to_i % step)).utc.iso8601
      end

      def initialize(pool: nil, now: Time.now)
        config = pool ? Deckhand::Client::Target.for(pool, "Sidekiq::Metrics::Query.new(pool:)").config_for(Deckhand.config) : Deckhand.config
        @store = config.store
        @time = now.utc
      end

      # Every class's metrics (or those whose name matches `class_filter`).
      def top_jobs(class_filter: nil, minutes: nil, hours: nil)
        result, times = period(minutes, hours)
        LAYOUT.read(@store, keys(times, result.granularity)).zip(times).each do |hash, time|
          hash.each do |field, value|
            klass, _, metric = field.rpartition("|")
            next if class_filter && !class_filter.match?(klass)
            result.job_results[klass].add_metric(metric, time, value.to_i)
          end
        end
        add_marks(result)
      end

      # One class's metrics, with each minute's histogram when by the minute.
      def for_job(klass, minutes: nil, hours: nil)
        klass = klass.to_s
        result, times = period(minutes, hours)
        job = result.job_results[klass]
        rows = LAYOUT.read(@store, keys(times, result.granularity), fields: %W[#{klass}|ms #{klass}|p #{klass}|f])
        rows.zip(times).each do |(ms, executions, failures), time|
          job.add_metric("ms", time, ms.to_i) if ms
          job.add_metric("p", time, executions.to_i) if executions
          job.add_metric("f", time, failures.to_i) if failures
        end
        if result.granularity == :minutely
          LAYOUT.read_histograms(@store, klass, times).zip(times).each { |counts, time| job.add_hist(time, counts.reverse) }
        end
        add_marks(result)
      end

      private

      # A result for the period asked (capped as Sidekiq caps it), and its
      # bucket times, newest first.
      def period(minutes, hours)
        minutes = 60 unless minutes || hours
        granularity = hours ? :hourly : :minutely
        count = hours ? [hours, MAX_HOURS].min * 6 : [minutes, MAX_MINUTES].min
        step, = ROLLUPS.fetch(granularity)
        result = RollupResult.new(granularity)
        result.ends_at = @time
        result.starts_at = @time - (step * count)
        [result, Array.new(count) { |i| @time - (step * i) }]
      end

      def keys(times, granularity)
        name = ROLLUPS.fetch(granularity).last
        times.map { |time| LAYOUT.public_send(name, time) }
      end

      def add_marks(result)
        range = result.starts_at..result.ends_at
        (range.begin.to_date..range.end.to_date).each do |date|
          Deckhand::Store::Records::DeployMarks.day(@store, date).each do |stamp, label|
            time = Time.parse(stamp)
            result.marks << RollupResult::Mark.new(time, label, RollupQuery.bkt_time_s(time, result.granularity)) if range.cover?(time)
          end
        end
        result
      end
    end
  end
end
