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
        WORDS = "top.sets"
        ACTIONS = {"r" => :retry, "d" => :delete, "K" => :kill, "c" => :cancel}.freeze
        CONFIRM = %i[delete kill cancel].freeze

        attr_reader :set_name

        def initialize(set_name, locale: nil)
          super(locale: locale)
          @set_name = set_name
        end

        def name = t("top.sets.#{@set_name}")

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
            paused.zero? ? t("top.sets.retried", count: moved) : t("top.sets.retried_paused", count: moved, paused: paused)
          when :delete then t("top.sets.deleted", count: set.delete(entries))
          when :kill then t("top.sets.killed", count: set.kill(entries))
          when :cancel
            outcomes = entries.select(&:jid).map { |entry| api.cancel(entry.jid) }
            t("top.cancelled", count: outcomes.count { |o| o != :not_found }, gone: outcomes.count(:not_found))
          end
        end

        private

        def describe(size, shown, filter)
          title = name
          return t("top.sets.matching", title: title, shown: shown, budget: count(API::JobSet::SCAN_BUDGET)) unless filter.empty?
          (size > shown) ? t("top.sets.first", title: title, size: count(size), shown: shown) : t("top.sets.summary", title: title, size: count(size))
        end

        def table
          last = (@set_name == :scheduled) ? {title: t("top.column.args"), min: 12, flex: 3, drop: 1} : {title: t("top.column.error"), min: 16, flex: 3, drop: 1}
          Table.new([
            {title: (@set_name == :dead) ? t("top.column.died") : t("top.column.due"), min: 12}, # "il y a 1m0s", "через 4m59s"
            {title: t("top.column.class"), min: 14, flex: 1},
            {title: t("top.column.queue"), min: 10, drop: 2},
            {title: t("top.column.tries"), min: 5, align: :right, drop: 3},
            last
          ])
        end

        def row(entry, now)
          return Row.new(entry.key, ["-", t("top.sets.corrupt"), "", "", ""], entry, :red) if entry.corrupt?
          last = (@set_name == :scheduled) ? JSON.generate(entry.display_args)[1...-1] : [entry.error_class, entry.error_message].compact.join(": ")
          cells = [when_of(entry.at, now), entry.display_class, entry.queue.to_s, entry.retry_count.to_s, last]
          Row.new(entry.key, cells, entry, (@set_name == :dead) ? :red : nil)
        end

        # "in 4m2s" for a time to come, "3m ago" for one gone.
        def when_of(time, now) = (time > now) ? t("top.time.in", span: Fitting.duration(time - now)) : t("top.time.ago", span: Fitting.duration(now - time))
      end
    end
  end
end
