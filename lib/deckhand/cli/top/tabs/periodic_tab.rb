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
        TEXT = {
          title: "Periodic", summary: "periodic jobs %{count}, leader %{leader}", no_leader: "none",
          name: "NAME", cron: "CRON", class: "CLASS", next: "NEXT", last: "LAST", state: "STATE",
          paused: "paused", in: "in %{span}", ago: "%{span} ago",
          toggled: "paused %{paused}, resumed %{resumed}"
        }.freeze
        ACTIONS = {"p" => :pause}.freeze

        def load(api, filter: "")
          periodic = api.periodic
          now = api.now
          @summary = text(:summary, count: periodic.size, leader: periodic.leader || text(:no_leader))
          @sections = [Section.new(nil, table, keep(periodic.map { |entry| row(entry, now) }, filter))]
          self
        end

        def act(_api, _action, rows)
          paused, running = rows.partition { |row| row.item.paused? }
          running.each { |row| row.item.pause }
          paused.each { |row| row.item.resume }
          text(:toggled, paused: running.size, resumed: paused.size)
        end

        private

        def table
          Table.new([
            {title: text(:name), min: 14, flex: 2},
            {title: text(:cron), min: 11, flex: 1, drop: 1},
            {title: text(:class), min: 14, flex: 2, drop: 2},
            {title: text(:next), min: 9},
            {title: text(:last), min: 9},
            {title: text(:state), min: 14, flex: 1}
          ])
        end

        def row(entry, now)
          states = []
          states << text(:paused) if entry.paused?
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
          (time > now) ? text(:in, span: Fitting.duration(time - now)) : text(:ago, span: Fitting.duration(now - time))
        end
      end
    end
  end
end
