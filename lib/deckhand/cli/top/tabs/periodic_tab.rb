# frozen_string_literal: true

require_relative "../tab"

module Deckhand
  class CLI
    module Top
      # The periodic (cron) jobs as the leader stored them: when each runs
      # next, when it last ran and how that went. p pauses a running entry
      # and resumes a paused one (API::PeriodicEntry#pause and #resume, the
      # dashboard's buttons).
      #
      #   tab = PeriodicTab.new.load(api, filter: "nightly")
      #   tab.act(api, :pause, tab.rows)   # => "paused 1, resumed 0"
      class PeriodicTab < Tab
        ACTIONS = {"p" => :pause}.freeze

        def name = t("top.periodic.title")

        def load(api, filter: "")
          periodic = api.periodic
          now = api.now
          @summary = t("top.periodic.summary", count: periodic.size, leader: periodic.leader || t("top.periodic.no_leader"))
          @sections = [Section.new(nil, table, keep(periodic.map { |entry| row(entry, now) }, filter))]
          self
        end

        def act(_api, _action, rows) = toggle_pause(rows, &:item)

        private

        def table
          Table.new([
            {title: t("top.column.name"), min: 14, flex: 2},
            {title: t("top.column.cron"), min: 11, flex: 1, drop: 1},
            {title: t("top.column.class"), min: 14, flex: 2, drop: 2},
            {title: t("top.column.next"), min: 9},
            {title: t("top.column.last"), min: 9},
            {title: t("top.column.state"), min: 14, flex: 1}
          ])
        end

        def row(entry, now)
          states = []
          states << t("top.state.paused") if entry.paused?
          outcome = entry.history.first
          states << outcome.state.to_s if outcome
          cells = [entry.name, entry.cron, entry.klass, when_of(entry.next_at, now), when_of(entry.last_at, now), states]
          tone = if entry.paused? then :yellow
          elsif outcome&.state.to_s == "failed" then :red
          end
          Row.new(entry.name, cells, entry, tone)
        end

        def when_of(time, now)
          return "-" unless time
          (time > now) ? t("top.time.in", span: Fitting.duration(time - now)) : t("top.time.ago", span: Fitting.duration(now - time))
        end
      end
    end
  end
end
