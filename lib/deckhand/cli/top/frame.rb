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
      # before it is painted; nothing here needs a terminal.
      #
      #   Frame.new(view, width: 80, height: 24, paint: Paint.new(false)).lines
      #   # => ["Deckhand top  redis://...  11:02:07 UTC", " 1 Overview  2 Busy ...", ...]
      class Frame
        TEXT = {
          title: "Deckhand top  %{location}  %{time} UTC", filtered: "  filter \"%{filter}\"", selected: "  %{count} selected",
          none: "   (none)", unreachable: "Redis unreachable: %{error}; retrying", prompt: "Filter: %{draft}_  (Enter applies, Esc cancels)",
          question: "%{question}  y/n", hint: "%{key} %{action}",
          keys: ["tab/1-8 tabs", "j/k move", "space select", "/ filter", "? help", "q quit"],
          help: [
            "Keys", "",
            "  tab, shift-tab, 1-8   switch tabs (left/right too)",
            "  up/down, j/k          move (PgUp/PgDn a page, g/G the ends)",
            "  space                 select the row; actions take the selected rows",
            "  /                     filter; in the job sets, the jobs' text (case counts)",
            "  Esc                   let go of the selection, then of the filter",
            "  q, Ctrl-C             quit", "",
            "This tab's actions (delete, kill, stop and cancel ask first):"
          ],
          help_action: "  %{key}                     %{action}", help_none: "  none: it only shows", help_close: "Any key closes this help."
        }.freeze

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
          elsif @view.error then Fitting.wrap(text(:unreachable, error: @view.error), @width)
          else body(body_height)
          end
          out = [title, tab_bar, summary, *body.first(body_height)]
          out << "" while out.size < @height - 1
          out << footer
        end

        private

        def text(key, **values) = format(TEXT.fetch(key), **values)

        def fit(line) = Fitting.fit(line, @width)

        def title = @paint.apply(Fitting.pad(text(:title, location: @location, time: @now.utc.strftime("%H:%M:%S")), @width), :reverse, :bold)

        # "1 Overview [2 Busy] 3 Queues ...", the current tab in brackets
        # (and reverse video); the names of the others left out when they do
        # not all fit.
        def tab_bar
          names = @view.tabs.each_with_index.map { |tab, i| "#{i + 1} #{tab.name}" }
          names = names.each_with_index.map { |name, i| (i == @view.index) ? name : (i + 1).to_s } if names.sum { |name| name.size + 1 } + 2 > @width
          parts = names.each_with_index.map { |name, i| (i == @view.index) ? @paint.apply("[#{name}]", :reverse, :cyan) : name }
          " #{parts.join(" ")}"
        end

        def summary
          tab = @view.tab
          line = tab.summary.dup
          line << text(:filtered, filter: @view.filter) unless @view.filter.empty?
          line << text(:selected, count: @view.selected.size) unless @view.selected.empty?
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
            entries << text(:none) if section.rows.empty?
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
          when :filter then @paint.apply(fit(text(:prompt, draft: @view.draft)), :bold)
          when :confirm then @paint.apply(fit(text(:question, question: @view.tab.question(*@view.pending))), :yellow, :bold)
          else
            return @paint.apply(fit(@view.message), :green) if @view.message
            @paint.apply(hints, :dim)
          end
        end

        # The tab's action keys, then the general ones, as many whole as fit.
        def hints
          names = ViewState::TEXT[:actions]
          all = @view.tab.actions.map { |key, action| text(:hint, key: key, action: names[action]) } + TEXT[:keys]
          all.each_with_object(+"") do |hint, line|
            break line if line.size + hint.size + 2 > @width
            line << "  " unless line.empty?
            line << hint
          end
        end

        def help
          names = ViewState::TEXT[:actions]
          actions = @view.tab.actions.map { |key, action| text(:help_action, key: key, action: names[action]) }
          (TEXT[:help] + (actions.empty? ? [TEXT[:help_none]] : actions) + ["", TEXT[:help_close]]).map { |line| fit(line) }
        end
      end
    end
  end
end
