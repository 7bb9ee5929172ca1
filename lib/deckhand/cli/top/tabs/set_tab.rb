# frozen_string_literal: true

require "json"
require_relative "../tab"

module Deckhand
  class CLI
    module Top
      # The retry, scheduled or dead set: its first LIMIT entries in the
      # set's order, or with a filter the entries whose JSON contains it
      # (case counts; searched inside Redis a bounded stretch at a time, as
      # the dashboard's filter is). Retry, delete, kill and cancel do what
      # the dashboard's buttons do: API::JobSet#retry, #delete, #kill and
      # API#cancel; a dead job is not killed again, nor cancelled.
      #
      #   tab = SetTab.new(:retries)
      #   tab.load(api, filter: "Net::ReadTimeout")
      #   tab.act(api, :retry, tab.rows)   # => "retried 3"
      class SetTab < Tab
        TEXT = {
          retries: "Retries", scheduled: "Scheduled", dead: "Dead",
          summary: "%{title}: %{size} in the set", first: "%{title}: %{size} in the set, the first %{shown} shown",
          matching: "%{title}: %{shown} found (a search of the first %{budget})",
          due: "DUE", died: "DIED", class: "CLASS", queue: "QUEUE", tries: "TRIES", error: "ERROR", args: "ARGUMENTS",
          corrupt: "(not a job)", in: "in %{span}", ago: "%{span} ago",
          confirm_delete: "Delete %{count} job(s) for good?", confirm_kill: "Move %{count} job(s) to the dead set?",
          confirm_cancel: "Cancel %{count} job(s)?",
          retried: "retried %{count}", retried_paused: "retried %{count} (%{paused} into paused queues: they wait there)",
          deleted: "deleted %{count}", killed: "killed %{count}", cancelled: "cancelled %{count}, %{gone} gone already"
        }.freeze
        ACTIONS = {"r" => :retry, "d" => :delete, "K" => :kill, "c" => :cancel}.freeze
        CONFIRM = %i[delete kill cancel].freeze

        attr_reader :set_name

        def initialize(set_name)
          super()
          @set_name = set_name
        end

        def name = text(@set_name)

        def actions = (@set_name == :dead) ? ACTIONS.slice("r", "d") : ACTIONS

        def load(api, filter: "")
          set = api.job_set(@set_name)
          size = set.size
          entries = filter.empty? ? set.page(1, LIMIT) : set.filter(filter, limit: LIMIT).first
          now = api.now
          @summary = describe(size, entries.size, filter)
          @sections = [Section.new(nil, table, entries.map { |entry| row(entry, now) })]
          self
        end

        def act(api, action, rows)
          set = api.job_set(@set_name)
          entries = rows.map(&:item)
          case action
          when :retry
            moved = set.retry(entries)
            paused = set.sent_to_paused.values.sum
            paused.zero? ? text(:retried, count: moved) : text(:retried_paused, count: moved, paused: paused)
          when :delete then text(:deleted, count: set.delete(entries))
          when :kill then text(:killed, count: set.kill(entries))
          when :cancel
            outcomes = entries.select(&:jid).map { |entry| api.cancel(entry.jid) }
            text(:cancelled, count: outcomes.count { |o| o != :not_found }, gone: outcomes.count(:not_found))
          end
        end

        private

        def describe(size, shown, filter)
          title = name
          return text(:matching, title: title, shown: shown, budget: count(API::JobSet::SCAN_BUDGET)) unless filter.empty?
          (size > shown) ? text(:first, title: title, size: count(size), shown: shown) : text(:summary, title: title, size: count(size))
        end

        def table
          last = (@set_name == :scheduled) ? {title: text(:args), min: 12, flex: 3, drop: 1} : {title: text(:error), min: 16, flex: 3, drop: 1}
          Table.new([
            {title: text((@set_name == :dead) ? :died : :due), min: 10},
            {title: text(:class), min: 16, flex: 1},
            {title: text(:queue), min: 10, drop: 2},
            {title: text(:tries), min: 5, align: :right, drop: 3},
            last
          ])
        end

        def row(entry, now)
          return Row.new(entry.key, ["-", text(:corrupt), "", "", ""], entry, :red) if entry.corrupt?
          last = (@set_name == :scheduled) ? JSON.generate(entry.display_args)[1...-1] : [entry.error_class, entry.error_message].compact.join(": ")
          cells = [when_of(entry.at, now), entry.display_class, entry.queue.to_s, entry.retry_count.to_s, last]
          Row.new(entry.key, cells, entry, (@set_name == :dead) ? :red : nil)
        end

        # "in 4m2s" for a time to come, "3m ago" for one gone.
        def when_of(time, now) = (time > now) ? text(:in, span: Fitting.duration(time - now)) : text(:ago, span: Fitting.duration(now - time))
      end
    end
  end
end
