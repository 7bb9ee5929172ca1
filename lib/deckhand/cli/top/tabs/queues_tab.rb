# frozen_string_literal: true

require_relative "../tab"

module Deckhand
  class CLI
    module Top
      # The queues, largest first: size, latency and state (paused, no live
      # process works it, throttled). p pauses a running queue and resumes a
      # paused one (API::Queue#pause and #resume, the dashboard's buttons).
      #
      #   tab = QueuesTab.new.load(api, filter: "")
      #   tab.act(api, :pause, tab.rows.first(1))   # => "paused 1, resumed 0"
      class QueuesTab < Tab
        ACTIONS = {"p" => :pause}.freeze

        def name = t("top.queues.title")

        def load(api, filter: "")
          queues = api.queues.sort_by { |queue| [-queue.size, queue.name] }
          processes = api.processes
          worked = processes.worked_queues
          throttled = api.throttles(processes: processes).to_h { |throttle| [throttle.queue, throttle] }
          now = api.now
          rows = queues.map { |queue| row(queue, now, worked, throttled[queue.name]) }
          @summary = t("top.queues.summary", count: queues.size, size: count(queues.sum(&:size)))
          @sections = [Section.new(nil, table, keep(rows, filter))]
          self
        end

        def act(api, _action, rows) = toggle_pause(rows) { |row| api.queue(row.key) }

        private

        def table
          Table.new([
            {title: t("top.column.queue"), min: 16, flex: 2},
            {title: t("top.column.size"), min: 10, align: :right},
            {title: t("top.column.latency"), min: 8, align: :right},
            {title: t("top.column.state"), min: 20, flex: 1}
          ])
        end

        def row(queue, now, worked, throttle)
          states = []
          states << t("top.state.paused") if queue.paused?
          states << t("top.state.unworked") unless worked.include?(queue.name)
          states << throttle_words(throttle) if throttle&.limit
          tone = if queue.paused? then :yellow
          elsif !worked.include?(queue.name) && queue.size.positive? then :red
          end
          Row.new(queue.name, [queue.name, count(queue.size), Fitting.duration(queue.latency(now)), states], queue, tone)
        end

        def throttle_words(throttle)
          limit = throttle.limit
          words = +t("top.state.throttled")
          words << " #{limit["rate"]}/#{limit["per"]}s" if limit["rate"]
          words << " #{throttle.held}/#{limit["concurrency"]}" if limit["concurrency"]
          words
        end
      end
    end
  end
end
