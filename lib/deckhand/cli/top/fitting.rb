# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # Fits text to a width without making nonsense of it: a cut falls
      # between words where one is near, and "~" marks it; a list of phrases
      # ("paused, no process") keeps whole phrases and counts the rest
      # ("paused +1"). Control characters in job data become spaces, so an
      # argument cannot move the cursor. Widths are a terminal's columns: a
      # CJK character or an emoji takes two, a combining mark none, so a line
      # of job data never runs past the edge and wraps the screen. Its own
      # marks are ASCII: they read the same over any SSH session and locale.
      #
      #   Fitting.fit("no process works it", 12)   # => "no process~"
      #   Fitting.phrases(["paused", "no process"], 9)   # => "paused +1"
      module Fitting
        MARK = "~"
        # Characters a terminal draws two columns wide (East Asian wide and
        # full-width forms, emoji), and those it draws in none.
        WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/
        NONE = /[\p{Mn}\p{Me}\u200B-\u200F]/

        module_function

        def fit(text, width)
          text = clean(text)
          return text if columns(text) <= width
          return "" if width <= 0
          return MARK * width if width < 3
          cut = first_columns(text, width - 1)
          space = cut.rindex(" ")
          cut = cut[0, space] if space && columns(cut[0, space]) >= width / 2
          "#{cut.rstrip}#{MARK}"
        end

        # How many columns of a terminal the text takes.
        def columns(text)
          return text.size if text.ascii_only?
          text.each_char.sum do |char|
            if char.match?(NONE) then 0
            elsif char.match?(WIDE) then 2
            else 1
            end
          end
        end

        # The longest start of the text that takes at most `width` columns.
        def first_columns(text, width)
          return text[0, width] if text.ascii_only?
          used = 0
          text.each_char.take_while { |char| (used += columns(char)) <= width }.join
        end

        # As many whole phrases as fit, then "+N" for those left out.
        def phrases(list, width)
          list = list.map { |phrase| clean(phrase) }
          whole = list.join(", ")
          return whole if columns(whole) <= width
          (list.size - 1).downto(1) do |shown|
            text = "#{list.first(shown).join(", ")} +#{list.size - shown}"
            return text if columns(text) <= width
          end
          fit(whole, width)
        end

        # The text in lines of at most `width`, broken between words.
        def wrap(text, width)
          clean(text).split(" ").each_with_object([+""]) do |word, lines|
            until word.empty?
              piece = first_columns(word, width)
              piece = word[0] if piece.empty?
              word = word[piece.size..]
              lines << +"" if !lines.last.empty? && columns(lines.last) + 1 + columns(piece) > width
              lines.last << " " unless lines.last.empty?
              lines.last << piece
            end
          end
        end

        def pad(text, width, align = :left)
          text = fit(text, width)
          room = " " * [width - columns(text), 0].max
          (align == :right) ? room + text : text + room
        end

        # 1234567 => "1,234,567"
        def count(value) = value.to_i.to_s.reverse.scan(/\d{1,3}/).join(",").reverse.then { |s| value.to_i.negative? ? "-#{s}" : s }

        # A duration in seconds, short: 4.2s, 3m12s, 5h3m, 2d4h.
        def duration(seconds)
          seconds = seconds.to_f.abs
          if seconds < 60 then format("%.1fs", seconds)
          elsif seconds < 3600 then "#{(seconds / 60).floor}m#{(seconds % 60).floor}s"
          elsif seconds < 86_400 then "#{(seconds / 3600).floor}h#{(seconds % 3600 / 60).floor}m"
          else "#{(seconds / 86_400).floor}d#{(seconds % 86_400 / 3600).floor}h"
          end
        end

        def clean(text) = text.to_s.gsub(/[[:cntrl:]]/, " ")
      end
    end
  end
end
