# frozen_string_literal: true

module Deckhand
  class CLI
    module Top
      # Turns the bytes a terminal sends in raw mode into key names: a
      # printable character stays itself, an escape sequence becomes a
      # Symbol (:up, :shift_tab, :page_down...). Sequences it does not know
      # are dropped whole, never read as letters (an unknown "\e[15~" must
      # not press "~").
      #
      #   Keys.parse("j\e[A\t")   # => ["j", :up, :tab]
      module Keys
        SEQUENCES = {
          "\e[A" => :up, "\e[B" => :down, "\e[C" => :right, "\e[D" => :left,
          "\eOA" => :up, "\eOB" => :down, "\eOC" => :right, "\eOD" => :left,
          "\e[Z" => :shift_tab, "\e[5~" => :page_up, "\e[6~" => :page_down,
          "\e[H" => :home, "\e[1~" => :home, "\eOH" => :home,
          "\e[F" => :end, "\e[4~" => :end, "\eOF" => :end
        }.freeze
        SINGLE = {
          "\t" => :tab, "\r" => :enter, "\n" => :enter, "\u007f" => :backspace, "\b" => :backspace,
          "\u0003" => :ctrl_c, "\u0004" => :ctrl_d, "\e" => :escape
        }.freeze
        # An escape sequence: CSI (ESC [ params final) or SS3 (ESC O letter).
        SEQUENCE = /\A\e(?:\[[0-9;?]*[@-~]|O[A-Za-z])/

        module_function

        def parse(bytes)
          text = bytes.to_s.dup.force_encoding(Encoding::UTF_8).scrub("")
          keys = []
          until text.empty?
            if text.start_with?("\e") && (sequence = text[SEQUENCE])
              keys << SEQUENCES[sequence] if SEQUENCES.key?(sequence)
              text = text[sequence.size..]
            else
              char = text[0]
              key = SINGLE.fetch(char) { char.match?(/[[:cntrl:]]/) ? nil : char }
              keys << key if key
              text = text[1..]
            end
          end
          keys
        end
      end
    end
  end
end
