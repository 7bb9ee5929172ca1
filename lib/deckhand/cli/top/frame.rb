# frozen_string_literal: true

require_relative "fitting"
require_relative "paint"

module Deckhand
  class CLI
    module Top
      # Draws a ViewState as the lines of one screen of `width` x `height`: the
      # title, the tabs, the tab's summary, its rows (scrolled to keep the
      # cursor in sight), and a last line for what happened, the filter
      # being typed, a question, or the keys. Every line fits the width
      # before it is painted; nothing here needs a terminal. Its words are
      # the view's language's (keys top.*), a right-to-left one in logical
      # order: the terminal lays it out (bidi), as it does any other text.
      #
      #   Frame.new(view, width: 80, height: 24, paint: Paint.new(false)).lines
      #   # => ["Deckhand top  redis://...  11:02:07 UTC", " 1 Overview  2 Busy ...", ...]
      class Frame
        TITLE = "Deckhand top  %{location}  %{time} UTC"
        # The keys the footer names, each with its text top.keys.<name>.
        KEYS = {"tab/1-8" => "tabs", "j/k" => "move", "space" => "select", "/" => "filter", "?" => "help", "q" => "quit"}.freeze
        # The help's keys, each with its text top.help.<name>; what it says starts at column HELP_COLUMN.
        HELP = {"tab, shift-tab, 1-8" => "tabs", "up/down, j/k" => "move", "space" => "select", "/" => "filter",
                "Esc" => "escape", "q, Ctrl-C" => "quit"}.freeze
        HELP_COLUMN = 24

        def initialize(view, width:, height:, paint:, location: "", now: Time.now)
          @view = view
          @width = [width, 20].max
          @height = [height, 6].max
          @paint = paint
          @location = location
          @now = now
        end

        def lines
          body_height = @height - 4
          body = if @view.mode == :help then help
          elsif @view.error then Fitting.wrap(t("top.unreachable", error: @view.error), @width)
          else body(body_height)
          end
          out = [title, tab_bar, summary, *body.first(body_height)]
          out << "" while out.size < @height - 1
          out << footer
        end

        private

        def t(key, **values) = @view.locale.t(key, **values)

        def fit(line) = Fitting.fit(line, @width)

        def title = @paint.apply(Fitting.pad(format(TITLE, location: @location, time: @now.utc.strftime("%H:%M:%S")), @width), :reverse, :bold)

        # "1 Overview [2 Busy] 3 Queues ...", the current tab in brackets
        # (and reverse video); the names of the others left out when they do
        # not all fit (in the terminal's columns: a Japanese name takes two a character).
        def tab_bar
          names = @view.tabs.each_with_index.map { |tab, i| "#{i + 1} #{tab.name}" }
          names = names.each_with_index.map { |name, i| (i == @view.index) ? name : (i + 1).to_s } if names.sum { |name| Fitting.columns(name) + 1 } + 2 > @width
          parts = names.each_with_index.map { |name, i| (i == @view.index) ? @paint.apply("[#{name}]", :reverse, :cyan) : name }
          " #{parts.join(" ")}"
        end

        def summary
          tab = @view.tab
          line = tab.summary.dup
          line << "  " << t("top.frame.filtered", filter: @view.filter) unless @view.filter.empty?
          line << "  " << t("top.frame.selected", count: @view.selected.size) unless @view.selected.empty?
          @paint.apply(fit(line), :bold)
        end

        def body(room)
          free = @view.tab.lines(@width, room) and return free
          @view.page_size = [room - 2, 1].max
          entries = []
          index = 0
          @view.tab.sections.each do |section|
            entries << "" unless entries.empty?
            entries << @paint.apply(fit(section.title), :bold) if section.title
            entries << @paint.apply(section.table.header(@width), :dim)
            entries << "   #{t("top.none")}" if section.rows.empty?
            section.rows.each do |row|
              entries << [index, row, section.table]
              index += 1
            end
          end
          window(entries, room).map { |entry| entry.is_a?(Array) ? row_line(*entry) : entry }
        end

        # The entries from the view's scroll on, moved so the cursor's row shows.
        def window(entries, room)
          at = entries.index { |entry| entry.is_a?(Array) && entry[0] == @view.cursor } || 0
          top = @view.scroll
          top = at if at < top
          top = at - room + 1 if at >= top + room
          top = 0 if at < room # the tables' titles show while they can
          @view.scroll = top.clamp(0, [entries.size - room, 0].max)
          entries[@view.scroll, room] || []
        end

        def row_line(index, row, table)
          cursor = index == @view.cursor
          chosen = @view.selected.include?(row.key)
          line = table.line(row.cells, @width, "#{cursor ? ">" : " "}#{chosen ? "*" : " "}")
          line = Fitting.pad(line, @width) if cursor && @paint.on? # the reverse video across the screen
          styles = [row.tone]
          styles << :bold if chosen
          styles << :reverse if cursor
          @paint.apply(line, *styles)
        end

        def footer
          case @view.mode
          when :filter then @paint.apply(fit(t("top.frame.prompt", draft: @view.draft)), :bold)
          when :confirm then @paint.apply(fit("#{@view.tab.question(*@view.pending)}  y/n"), :yellow, :bold)
          else
            return @paint.apply(fit(@view.message), :green) if @view.message
            @paint.apply(hints, :dim)
          end
        end

        # The tab's action keys, then the general ones, as many whole as fit.
        def hints
          all = @view.tab.actions.map { |key, action| "#{key} #{@view.action_name(action)}" } + KEYS.map { |key, name| "#{key} #{t("top.keys.#{name}")}" }
          all.each_with_object(+"") do |hint, line|
            break line if Fitting.columns(line) + Fitting.columns(hint) + 2 > @width
            line << "  " unless line.empty?
            line << hint
          end
        end

        def help
          keys = HELP.map { |key, name| help_line(key, t("top.help.#{name}")) }
          actions = @view.tab.actions.map { |key, action| help_line(key, @view.action_name(action)) }
          actions = ["  #{t("top.help.no_actions")}"] if actions.empty?
          [t("top.help.title"), "", *keys, "", t("top.help.actions"), *actions, "", t("top.help.close")].map { |line| fit(line) }
        end

        def help_line(key, words) = "  #{Fitting.pad(key, HELP_COLUMN - 2)}#{words}"
      end
    end
  end
end
