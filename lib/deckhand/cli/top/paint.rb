# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # Colours text with ANSI escapes, or leaves it plain: off when
      # NO_COLOR is set (https://no-color.org) or the output is not a
      # terminal. Text is fitted before it is painted, so the escapes never
      # count towards a width.
      #
      #   paint = Paint.new(Paint.wanted?($stdout))
      #   paint.apply("paused", :yellow)   # => "\e[33mpaused\e[0m" (or "paused")
      class Paint
        CODES = {bold: 1, dim: 2, reverse: 7, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36}.freeze

        def self.wanted?(out, env = ENV) = env["NO_COLOR"].to_s.empty? && out.respond_to?(:tty?) && out.tty?

        def initialize(on)
          @on = on
        end

        def on? = @on

        def apply(text, *styles)
          styles = styles.compact
          return text if !@on || styles.empty? || text.empty?
          "\e[#{styles.map { |style| CODES.fetch(style) }.join(";")}m#{text}\e[0m"
        end
      end
    end
  end
end
