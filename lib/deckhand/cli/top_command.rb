# frozen_string_literal: true

require "io/console"
require_relative "../../deckhand"
require_relative "../api"
require_relative "command"
require_relative "top/snapshot"
require_relative "top/screen"
require_relative "top/view_state"
require_relative "top/frame"
require_relative "top/terminal"

module Deckhand
  class CLI
    # `deckhand top`: the fleet in the terminal (over SSH too), refreshed
    # every second, in tabs: overview, busy, queues, retries, dead,
    # scheduled, periodic, limits; with a filter, row selection and the
    # dashboard's actions (retry, delete, kill, pause, quiet, stop, cancel).
    # ? shows the keys; q (or Ctrl-C) quits. Top::ViewState holds the state and
    # the keys, Top::Frame draws it, Top::Terminal is the screen.
    #
    #   deckhand top                         # Redis from REDIS_URL
    #   deckhand top --redis redis://10.0.0.5:6379/2 -i 2
    #   deckhand top --once                  # one frame as plain text, for scripts
    #   deckhand top --locale de             # in German (else LC_ALL, LC_MESSAGES or LANG says)
    class TopCommand
      include Command

      def run
        options = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        connect(options)
        @interval = options.fetch(:interval, 1.0)
        @locale = Locale[options.fetch(:locale) { Locale.from_environment }]
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
          "Usage: deckhand top [options]\n\nA live view of the fleet in tabs, with the dashboard's actions; ? shows the keys, q quits.\nRedis comes from REDIS_URL or --redis. Colour is off with NO_COLOR set.\n\n") do |p, options|
          p.on("-i", "--interval SECONDS", Float, "Seconds between refreshes (default: 1)") { |v| options[:interval] = v }
          p.on("--once", "Print one frame as plain text and exit") { options[:once] = true }
          p.on("--locale NAME", "Language: #{Locale.names.join(", ")} (default: LC_ALL, LC_MESSAGES or LANG)") { |v| options[:locale] = locale(v) }
        end
        raise ConfigError, "--interval must be from 0.1 to 60 seconds" if options[:interval] && !(0.1..60).cover?(options[:interval])
        options
      end

      # A language there are texts for, by its name ("de") or a POSIX locale's ("de_DE.UTF-8").
      def locale(name)
        Locale.posix(name) or raise ConfigError, "--locale #{name.inspect} is not a language deckhand top speaks: give one of #{Locale.names.join(", ")}"
      end

      def once
        @out.puts(frame_lines(120, 40, nil, live: false).first.join("\n"))
        0
      end

      # Draws, then waits up to the interval for keys; reads the data again
      # when the interval has passed or a key changed what is shown.
      def live(input)
        api = API.new
        location = Deckhand.config.store.location
        view = Top::ViewState.new(api, location: location, locale: @locale)
        paint = Top::Paint.new(Top::Paint.wanted?(@out))
        Top::Terminal.open(input, @out) do |terminal|
          due = 0.0
          loop do
            if Monotonic.now >= due
              view.refresh
              due = Monotonic.now + @interval
            end
            height, width = terminal.size
            terminal.draw(Top::Frame.new(view, width: width, height: height, paint: paint, location: location, now: Time.now).lines)
            answers = terminal.keys([due - Monotonic.now, 0].max).map { |key| answer(view, key) }
            break if answers.include?(:quit)
            due = 0.0 if answers.include?(:reload)
          end
        end
        0
      end

      # A resize only redraws; the terminal's :quit (a signal, the input closed) quits.
      def answer(view, key)
        case key
        when :quit then :quit
        when :resize then nil
        else view.press(key)
        end
      end

      # [lines, snapshot]; Redis going away shows on screen and the view keeps trying.
      def frame_lines(width, height, previous, live: true)
        api = API.new
        snapshot = Top::Snapshot.read(api, previous: previous)
        screen = Top::Screen.new(width: width, height: height, locale: @locale)
        [screen.lines(snapshot, location: Deckhand.config.store.location, now: api.now, live: live), snapshot]
      rescue Deckhand::RedisError => e
        [["Deckhand top  #{Deckhand.config.store.location}", "", @locale.t("top.unreachable", error: e.message)], nil]
      end
    end
  end
end
