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
        TEXT = {
          title: "Limits", summary: "throttled queues %{throttles}, limiters used in the last day %{limiters}",
          throttles: "Queue throttles", limiters: "Limiters",
          queue: "QUEUE", limit: "LIMIT", held: "HELD", source: "FROM",
          name: "NAME", type: "TYPE", size: "SIZE", over: "OVER", waited: "WAITED",
          rate: "%{rate} per %{per}s", slots: "%{concurrency} at once",
          runtime: "set at run time", servers: "the servers", local: "this config"
        }.freeze

        def load(api, filter: "")
          throttles = api.throttles
          limiters = api.limiters
          @summary = text(:summary, throttles: throttles.size, limiters: limiters.size)
          @sections = [
            Section.new(text(:throttles), throttle_table, keep(throttles.map { |throttle| throttle_row(throttle) }, filter)),
            Section.new(text(:limiters), limiter_table, keep(limiters.first(LIMIT).map { |limiter| limiter_row(limiter) }, filter))
          ]
          self
        end

        private

        def throttle_table
          Table.new([
            {title: text(:queue), min: 16, flex: 2},
            {title: text(:limit), min: 24, flex: 2},
            {title: text(:held), min: 6, align: :right},
            {title: text(:source), min: 14, flex: 1, drop: 1}
          ])
        end

        def limiter_table
          Table.new([
            {title: text(:name), min: 20, flex: 2},
            {title: text(:type), min: 10},
            {title: text(:size), min: 6, align: :right},
            {title: text(:held), min: 6, align: :right},
            {title: text(:over), min: 8, align: :right},
            {title: text(:waited), min: 8, align: :right, drop: 1}
          ])
        end

        def throttle_row(throttle)
          limit = throttle.limit
          words = []
          words << text(:rate, rate: limit["rate"], per: limit["per"]) if limit["rate"]
          words << text(:slots, concurrency: limit["concurrency"]) if limit["concurrency"]
          Row.new([:throttle, throttle.queue], [throttle.queue, words, throttle.held.to_s, text(throttle.source)], throttle, nil, :throttle)
        end

        def limiter_row(limiter)
          cells = [limiter["name"], limiter["type"].to_s, limiter["size"].to_s, limiter["held"].to_s, count(limiter["over"]), count(limiter["waited"])]
          Row.new([:limiter, limiter["name"]], cells, limiter, limiter["over"].to_i.positive? ? :yellow : nil, :limiter)
        end
      end
    end
  end
end
