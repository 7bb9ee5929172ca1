# frozen_string_literal: true

require_relative "fitting"
require_relative "table"
require_relative "../../locale"

module Deckhand
  class CLI
    module Top
      # What every tab of `deckhand top` shares. A tab reads its data through
      # the API (#load), shows it as sections of rows, each a table with a
      # title, and acts on rows (#act) with the dashboard's API calls. Its
      # words are texts of the user's language (Deckhand::Locale, keys
      # top.*; its own under WORDS); the keys that act are in its ACTIONS.
      #
      #   tab = QueuesTab.new
      #   tab.load(api, filter: "mail")
      #   tab.rows.map(&:key)               # => ["mailers"]
      #   tab.act(api, :pause, tab.rows)    # => "paused 1"
      class Tab
        # key: what finds the row again after a refresh (selection keeps to
        # it); kind: what the row is, for tabs with rows of two kinds; tone:
        # its colour.
        Row = Struct.new(:key, :cells, :item, :tone, :kind)
        Section = Struct.new(:title, :table, :rows)
        # The prefix of the tab's own texts ("top.busy").
        WORDS = "top"
        ACTIONS = {}.freeze
        # Actions that ask first (Frame shows its text WORDS.confirm_<action>).
        CONFIRM = [].freeze
        # Rows read per refresh: a bounded slice, whatever the size of the set.
        LIMIT = 200

        attr_reader :sections, :summary, :locale

        # locale: a Deckhand::Locale::Catalog; nil is English.
        def initialize(locale: nil)
          @locale = locale || Locale[Locale::DEFAULT]
          @sections = []
          @summary = ""
        end

        # The tab's name, in its language.
        def name = raise(NotImplementedError, "#{self.class} names itself")

        # A text of the tab's language (Locale::Catalog#t).
        def t(key, **values) = @locale.t(key, **values)

        def rows = @sections.flat_map(&:rows)

        # {key => action} for the keys this tab acts on.
        def actions = self.class::ACTIONS

        def confirm?(action) = self.class::CONFIRM.include?(action)

        # Free text instead of tables (the overview): lines at a width and height, or nil.
        def lines(_width, _height) = nil

        # What `action` would do to `rows`, as the confirmation asks it.
        def question(action, rows) = t("#{self.class::WORDS}.confirm_#{action}", count: rows.size)

        # Whether `action` applies to a row (a tab with two kinds of row acts on one).
        def acts_on?(_action, _row) = true

        private

        # The rows whose cells contain `filter`, case ignored.
        def keep(rows, filter)
          return rows if filter.to_s.empty?
          needle = filter.downcase
          rows.select { |row| row.cells.any? { |cell| Array(cell).join(" ").downcase.include?(needle) } }
        end

        # Pauses what the running rows show and resumes what the paused
        # ones show (a row's item answers paused?; the block gives what
        # pauses and resumes for a row); says how many of each.
        def toggle_pause(rows)
          paused, running = rows.partition { |row| row.item.paused? }
          running.each { |row| yield(row).pause }
          paused.each { |row| yield(row).resume }
          t("top.toggled", paused: running.size, resumed: paused.size)
        end

        def count(value) = @locale.number(value)

        def ago(time, now) = time ? Fitting.duration(now - time) : "-"
      end
    end
  end
end
