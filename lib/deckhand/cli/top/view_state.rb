# frozen_string_literal: true

require_relative "tabs/overview_tab"
require_relative "tabs/busy_tab"
require_relative "tabs/queues_tab"
require_relative "tabs/set_tab"
require_relative "tabs/periodic_tab"
require_relative "tabs/limits_tab"

module Deckhand
  class CLI
    module Top
      # The state of `deckhand top` and what each key does to it: which tab
      # shows, the cursor, the selected rows, each tab's filter, and the
      # mode (browsing, typing a filter, confirming an action, reading the
      # help). It reads and acts through the API only; Frame draws it and
      # the command's loop feeds it keys, so it runs without a terminal.
      #
      #   view = ViewState.new(API.new, location: "redis://localhost:6379/0")
      #   view.refresh
      #   view.press("4")    # => :reload (the retries tab)
      #   view.press(" ")    # selects the job under the cursor
      #   view.press("r")    # => :reload, the job back in its queue
      #   view.message       # => "retried 1"
      #
      # It speaks the language it is given (a Deckhand::Locale::Catalog,
      # English when none), and so do its tabs.
      class ViewState
        QUIT = ["q", :ctrl_c, :ctrl_d].freeze

        attr_reader :locale, :tabs, :index, :mode, :draft, :message, :error, :selected, :cursor, :pending
        attr_accessor :scroll, :page_size

        def initialize(api, location:, locale: nil)
          @api = api
          @locale = locale || Locale[Locale::DEFAULT]
          words = {locale: @locale}
          @tabs = [OverviewTab.new(location: location, **words), BusyTab.new(**words), QueuesTab.new(**words), SetTab.new(:retries, **words),
            SetTab.new(:dead, **words), SetTab.new(:scheduled, **words), PeriodicTab.new(**words), LimitsTab.new(**words)]
          @index = 0
          @filters = Hash.new("")
          @selected = []
          @cursor = 0
          @scroll = 0
          @page_size = 10
          @mode = :browse
          @draft = +""
          @top = true
        end

        def tab = @tabs[@index]

        def filter = @filters[@index]

        def rows = tab.rows

        # An action's name, as the keys' hints and the help say it.
        def action_name(action) = @locale.t("top.actions.#{action}")

        # Reads the tab's data again; a Redis outage is kept to show, and the
        # next refresh tries again. The cursor stays on its row when the rows
        # move (a queue grown past another): an action goes where it was seen.
        # A new tab or filter starts at the top.
        def refresh
          under = rows[@cursor]&.key unless @top
          @top = false
          tab.load(@api, filter: filter)
          @error = nil
          @cursor = rows.index { |row| row.key == under } || @cursor.clamp(0, [rows.size - 1, 0].max)
          @selected &= rows.map(&:key)
        rescue Deckhand::RedisError => e
          @error = e.message
        end

        # Handles one key (Keys.parse's names): :quit, :reload when the data
        # should be read again, else nil. Ctrl-C quits whatever the mode.
        def press(key)
          return :quit if key == :ctrl_c
          case @mode
          when :help then (@mode = :browse) && nil # any key closes the help
          when :filter then typing(key)
          when :confirm then confirming(key)
          else browsing(key)
          end
        end

        private

        def browsing(key)
          return :quit if QUIT.include?(key)
          @message = nil
          case key
          when :tab, :right then switch((@index + 1) % @tabs.size)
          when :shift_tab, :left then switch((@index - 1) % @tabs.size)
          when "1".."8" then switch(key.to_i - 1)
          when :down, "j" then move(1)
          when :up, "k" then move(-1)
          when :page_down then move(@page_size)
          when :page_up then move(-@page_size)
          when :home, "g" then move(-rows.size)
          when :end, "G" then move(rows.size)
          when " " then toggle
          when "/" then (@mode = :filter) && (@draft = filter.dup) && nil
          when "?" then (@mode = :help) && nil
          when :escape then escape
          else
            action = tab.actions[key] and start(action)
          end
        end

        def typing(key)
          case key
          when :enter then (@filters[@index] = @draft.strip) && browse_from_top
          when :escape then (@mode = :browse) && nil
          when :backspace then @draft.chop! && nil
          when String then (@draft << key) && nil
          end
        end

        def confirming(key)
          action, targets = @pending
          @pending = nil
          @mode = :browse
          return (@message = @locale.t("top.view.declined")) && nil unless key == "y"
          perform(action, targets)
        end

        def switch(index)
          @index = index
          @selected = []
          @cursor = @scroll = 0
          @top = true
          @message = nil
          :reload
        end

        def browse_from_top
          @mode = :browse
          @cursor = @scroll = 0
          @top = true
          :reload
        end

        def move(by)
          @cursor = (@cursor + by).clamp(0, [rows.size - 1, 0].max)
          nil
        end

        def toggle
          row = rows[@cursor] or return nil
          @selected.include?(row.key) ? @selected.delete(row.key) : @selected << row.key
          move(1)
        end

        # Esc lets go of the selection, then of the filter.
        def escape
          return (@selected = []) && nil unless @selected.empty?
          return nil if filter.empty?
          @filters[@index] = ""
          browse_from_top
        end

        # The selected rows the action applies to, else the row under the cursor.
        def start(action)
          chosen = rows.select { |row| @selected.include?(row.key) }
          chosen = [rows[@cursor]].compact if chosen.empty?
          targets = chosen.select { |row| tab.acts_on?(action, row) }
          return (@message = @locale.t("top.view.nothing", action: action_name(action))) && nil if targets.empty?
          return perform(action, targets) unless tab.confirm?(action)
          @pending = [action, targets]
          @mode = :confirm
          nil
        end

        def perform(action, targets)
          @message = tab.act(@api, action, targets)
          @selected = []
          :reload
        rescue Deckhand::Error => e
          @message = @locale.t("top.view.failed", action: action_name(action), error: e.message)
          :reload
        end
      end
    end
  end
end
