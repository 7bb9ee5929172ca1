# frozen_string_literal: true

require "io/console"
require_relative "keys"

module Deckhand
  class CLI
    module Top
      # The terminal `deckhand top` draws on: the alternate screen with the
      # cursor hidden, raw mode (keys arrive one by one, unechoed), and
      # everything given back as it was on the way out, whatever ends the
      # view. A resize (SIGWINCH) or a SIGINT/SIGTERM wakes the wait for
      # keys through a pipe: a signal handler may only write to it.
      #
      #   Terminal.open($stdin, $stdout) do |terminal|
      #     terminal.draw(["hello"])
      #     terminal.keys(1.0)   # => ["q"], [:resize], [:quit] or [] after a second
      #   end
      class Terminal
        ENTER = "\e[?1049h\e[?25l" # alternate screen, cursor hidden
        LEAVE = "\e[?25h\e[?1049l"
        SIGNALS = {"WINCH" => "r", "INT" => "q", "TERM" => "q"}.freeze

        def self.open(input, output)
          terminal = new(input, output)
          terminal.start
          input.raw { yield terminal }
        ensure
          terminal&.finish
        end

        def initialize(input, output)
          @input = input
          @output = output
          @wake_reader, @wake_writer = IO.pipe
          @traps = {}
        end

        def start
          SIGNALS.each do |signal, byte|
            @traps[signal] = trap(signal) { @wake_writer.write_nonblock(byte, exception: false) }
          end
          @output.write(ENTER)
        end

        def finish
          @traps.each { |signal, previous| trap(signal, previous || "DEFAULT") }
          @output.write(LEAVE)
          @output.flush
          @wake_reader.close
          @wake_writer.close
        end

        # [rows, columns]
        def size = @input.winsize

        # Each line drawn over the last frame, the rest of the screen cleared.
        def draw(lines)
          @output.write("\e[H#{lines.map { |line| "#{line}\e[K" }.join("\r\n")}\e[J")
          @output.flush
        end

        # The keys pressed within `timeout` seconds (Keys.parse's names),
        # :resize after a SIGWINCH, :quit after SIGINT or SIGTERM or when the
        # input has closed; [] when nothing came.
        def keys(timeout)
          ready, = IO.select([@input, @wake_reader], nil, nil, timeout)
          return [] unless ready
          keys = []
          if ready.include?(@wake_reader)
            woken = @wake_reader.read_nonblock(64, exception: false).to_s
            keys << :resize if woken.include?("r")
            keys << :quit if woken.include?("q")
          end
          if ready.include?(@input)
            bytes = @input.read_nonblock(256, exception: false)
            return keys << :quit if bytes.nil? # end of input
            keys.concat(Keys.parse(bytes)) if bytes.is_a?(String)
          end
          keys
        end
      end
    end
  end
end
