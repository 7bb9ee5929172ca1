# frozen_string_literal: true

module Deckhand
  class Web
    module Pages
      # The front page: live counters and throughput, daily history, the
      # busiest queues and Redis (in cluster mode, which primary holds which
      # queue), a warning for queues no process works and one when Redis may
      # evict jobs or is nearly full (API::Eviction); plus
      # the JSON the live chart polls. The live chart starts from the stored
      # per-minute (or per-hour) throughput of the period chosen
      # (API::Throughput) and adds what each poll counts to its last point.
      class DashboardPage < Action # :nodoc:
        DAYS = %w[7 30 90 365].freeze
        QUEUES_SHOWN = 10

        def show
          @section = "dashboard"
          @stats = api.stats
          @days = choice_param("days", DAYS, "30").to_i
          @history = api.history(days: @days)
          all = api.queues
          @queue_count = all.size
          @queues = all.max_by(QUEUES_SHOWN, &:size)
          @redis = api.redis_info
          @placement = api.placement
          @interval = int_param("interval", 5, 1..60)
          @throughput = api.throughput(period: choice_param("period", API::Throughput::PERIODS, "1h"))
          @failures = api.failures_by_error(period: @throughput.period)
          @unworked = api.unworked_queues.first(QUEUES_SHOWN)
          @eviction = api.eviction
          render :dashboard, title: t("nav.dashboard")
        end

        # The counters, and the queues holding jobs that no live process works.
        def stats
          unworked = api.unworked_queues.map { |queue| {name: queue.name, size: queue.size} }
          json(api.stats.to_h.merge(unworked_queues: unworked, time: api.now.to_f))
        end

        private

        def history_points = @history.map { |day| [day.date, day.processed, day.failed] }

        def failure_labels = point_labels(@failures.times, @failures.period)

        # [epoch seconds, processed, failed] per point, oldest first.
        def throughput_points = @throughput.points.map { |time, processed, failed| [time.to_i, processed, failed] }
      end
    end
  end
end
