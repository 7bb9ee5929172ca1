# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # Per-class executions, failures and execution time over a chosen period,
      # and one class's charts.
      class MetricsPage < Action # :nodoc:
        PERIODS = API::Metrics::PERIODS.keys.freeze

        # Every class of the period, or those whose name holds `q` (any case).
        def index
          @section = "metrics"
          @period = choice_param("period", PERIODS, "1h")
          @query = text_param("q").strip
          @metrics = api.metrics(period: @period)
          @classes = @metrics.classes
          @classes = @classes.select { |m| m.name.downcase.include?(@query.downcase) } unless @query.empty?
          render :metrics, title: t("nav.metrics")
        end

        def show
          @section = "metrics"
          @period = choice_param("period", PERIODS, "1h")
          @klass = params["klass"]
          @metrics = api.metrics(period: @period)
          @series = @metrics.series(@klass)
          @total = @series.each_with_object(API::ClassMetrics.new(@klass)) do |point, total|
            total.add("c", nil, point.count)
            total.add("f", nil, point.failed)
            total.add("ms", nil, point.total_ms)
            total.add("fms", nil, point.failed_ms)
            point.histogram.each { |bucket, n| total.add("h", bucket, n) }
            point.failed_histogram.each { |bucket, n| total.add("fh", bucket, n) }
          end
          render :metric, title: t("metrics.page_title", name: @klass)
        end
      end
    end
  end
end
