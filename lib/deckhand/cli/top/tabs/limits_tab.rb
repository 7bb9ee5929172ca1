# frozen_string_literal: true

require_relative "../tab"

module Deckhand
  class CLI
    module Top
      # The queue throttles in force (where each limit comes from, the slots
      # held across the fleet) and the limiters used in the last day with
      # their counters, as the dashboard's Limits page shows them. Read only:
      # a limit is changed in the configuration or on that page.
      #
      #   LimitsTab.new.load(api, filter: "stripe").rows.map(&:key)
      class LimitsTab < Tab
        def name = t("top.limits.title")

        def load(api, filter: "")
          throttles = api.throttles
          limiters = api.limiters
          @summary = t("top.limits.summary", throttles: throttles.size, limiters: limiters.size)
          @sections = [
            Section.new(t("top.limits.throttles"), throttle_table, keep(throttles.map { |throttle| throttle_row(throttle) }, filter)),
            Section.new(t("top.limits.limiters"), limiter_table, keep(limiters.first(LIMIT).map { |limiter| limiter_row(limiter) }, filter))
          ]
          self
        end

        private

        def throttle_table
          Table.new([
            {title: t("top.column.queue"), min: 16, flex: 2},
            {title: t("top.column.limit"), min: 24, flex: 2},
            {title: t("top.column.held"), min: 6, align: :right},
            {title: t("top.column.source"), min: 14, flex: 1, drop: 1}
          ])
        end

        def limiter_table
          Table.new([
            {title: t("top.column.name"), min: 20, flex: 2},
            {title: t("top.column.type"), min: 10},
            {title: t("top.column.size"), min: 6, align: :right},
            {title: t("top.column.held"), min: 6, align: :right},
            {title: t("top.column.over"), min: 8, align: :right},
            {title: t("top.column.waited"), min: 8, align: :right, drop: 1}
          ])
        end

        def throttle_row(throttle)
          limit = throttle.limit
          words = []
          words << t("top.limits.rate", rate: limit["rate"], per: limit["per"]) if limit["rate"]
          words << t("top.limits.slots", concurrency: limit["concurrency"]) if limit["concurrency"]
          Row.new([:throttle, throttle.queue], [throttle.queue, words, throttle.held.to_s, t("top.limits.#{throttle.source}")], throttle, nil, :throttle)
        end

        def limiter_row(limiter)
          cells = [limiter["name"], limiter["type"].to_s, limiter["size"].to_s, limiter["held"].to_s, count(limiter["over"]), count(limiter["waited"])]
          Row.new([:limiter, limiter["name"]], cells, limiter, limiter["over"].to_i.positive? ? :yellow : nil, :limiter)
        end
      end
    end
  end
end
