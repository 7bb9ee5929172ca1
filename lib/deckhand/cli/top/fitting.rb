# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # Fits text to a width without making nonsense of it: a cut falls
      # between words where one is near, and "~" marks it; a list of phrases
      # ("paused, no process") keeps whole phrases and counts the rest
      # ("paused +1"). Control characters in job data become spaces, so an
      # argument cannot move the cursor. ASCII only: it reads the same over
      # any SSH session and locale.
      #
      #   Fitting.fit("no process works it", 12)   # => "no process~"
      #   Fitting.phrases(["paused", "no process"], 9)   # => "paused +1"
      module Fitting
        MARK = "~"

        module_function

        def fit(text, width)
          text = clean(text)
          return text if text.size <= width
          return "" if width <= 0
          return MARK * width if width < 3
          cut = text[0, width - 1]
          space = cut.rindex(" ")
          cut = cut[0, space] if space && space >= width / 2
          "#{cut.rstrip}#{MARK}"
        end

        # As many whole phrases as fit, then "+N" for those left out.
        def phrases(list, width)
          list = list.map { |phrase| clean(phrase) }
          whole = list.join(", ")
          return whole if whole.size <= width
          (list.size - 1).downto(1) do |shown|
            text = "#{list.first(shown).join(", ")} +#{list.size - shown}"
            return text if text.size <= width
          end
          fit(whole, width)
        end

        # The text in lines of at most `width`, broken between words.
        def wrap(text, width)
          clean(text).split(" ").each_with_object([+""]) do |word, lines|
            word.scan(/.{1,#{width}}/).each do |piece|
              lines << +"" if !lines.last.empty? && lines.last.size + 1 + piece.size > width
              lines.last << " " unless lines.last.empty?
              lines.last << piece
            end
          end
        end

        def pad(text, width, align = :left)
          text = fit(text, width)
          (align == :right) ? text.rjust(width) : text.ljust(width)
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
