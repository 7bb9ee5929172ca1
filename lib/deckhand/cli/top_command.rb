# frozen_string_literal: true

require "io/console"
require_relative "../../deckhand"
require_relative "../api"
require_relative "command"
require_relative "top/snapshot"
require_relative "top/screen"

module Deckhand
  class CLI
    # `deckhand top`: a live view of the fleet in the terminal (over SSH too),
    # refreshed every second: totals and throughput, queues with size and
    # latency, processes with busy threads and memory. q (or Ctrl-C) quits.
    #
    #   deckhand top                         # Redis from REDIS_URL
    #   deckhand top --redis redis://10.0.0.5:6379/2 -i 2
    #   deckhand top --once                  # one frame as plain text, for scripts
    class TopCommand
      include Command

      ENTER = "\e[?1049h\e[?25l" # alternate screen, cursor hidden
      LEAVE = "\e[?25h\e[?1049l"
      QUIT = ["q", "Q", "\u0003", "\u0004"].freeze

      def run
        options = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        connect(options)
        @interval = options.fetch(:interval, 1.0)
        return once if options[:once]
        raise ConfigError, "deckhand top needs a terminal (use --once for plain output)" unless $stdin.tty?
        live($stdin)
      rescue ConfigError, ConnectionError, UnsupportedRedisError, LoadError => e
        @err.puts("deckhand top: #{e.message}")
        1
      end

      private

      def parse
        options, = parse_options("deckhand top",
          "Usage: deckhand top [options]\n\nA live view of queues and processes; q quits. Redis comes from REDIS_URL or --redis.\n\n") do |p, options|
          p.on("-i", "--interval SECONDS", Float, "Seconds between refreshes (default: 1)") { |v| options[:interval] = v }
          p.on("--once", "Print one frame as plain text and exit") { options[:once] = true }
        end
        raise ConfigError, "--interval must be from 0.1 to 60 seconds" if options[:interval] && !(0.1..60).cover?(options[:interval])
        options
      end

      def once
        @out.puts(frame_lines(120, 40, nil, live: false).first.join("\n"))
        0
      end

      def live(input)
        @out.write(ENTER)
        input.raw do
          previous = nil
          loop do
            height, width = input.winsize
            lines, previous = frame_lines(width, height, previous)
            @out.write("\e[H#{lines.map { |line| "#{line}\e[K" }.join("\r\n")}\e[J")
            @out.flush
            break if quit?(input)
          end
        end
        0
      ensure
        @out.write(LEAVE)
        @out.flush
      end

      # [lines, snapshot]; Redis going away shows on screen and the view keeps trying.
      def frame_lines(width, height, previous, live: true)
        api = API.new
        snapshot = Top::Snapshot.read(api, previous: previous)
        screen = Top::Screen.new(width: width, height: height)
        [screen.lines(snapshot, location: Deckhand.config.store.location, now: api.now, live: live), snapshot]
      rescue Deckhand::RedisError => e
        [["Deckhand top  #{Deckhand.config.store.location}", "", "Redis unreachable: #{e.message}; retrying"], nil]
      end

      # Waits up to the interval for a key; true when it says quit.
      def quit?(input)
        return false unless input.wait_readable(@interval)
        keys = input.read_nonblock(64, exception: false)
        keys.nil? || (keys.is_a?(String) && keys.each_char.any? { |key| QUIT.include?(key) })
      end
    end
  end
end
