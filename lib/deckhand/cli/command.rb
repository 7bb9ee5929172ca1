# frozen_string_literal: true

require "optparse"

module Deckhand
  class CLI
    # What every command shares: its arguments, where it writes, and a class-level
    # `run` that returns the exit status.
    #
    #   class CLI::WebCommand
    #     include CLI::Command
    #     def run = ...   # @argv, @out, @err
    #   end
    #   CLI::WebCommand.run(["-p", "7433"])   # => 0
    module Command
      def self.included(base) = base.extend(ClassMethods)

      module ClassMethods
        def run(argv = ARGV, out: $stdout, err: $stderr) = new(argv, out: out, err: err).run
      end

      def initialize(argv, out: $stdout, err: $stderr)
        @argv = argv
        @out = out
        @err = err
      end

      private

      # The options of a command that reads the fleet, parsed from @argv:
      # the command's own (the block adds them to the parser, into
      # `options`), then --redis, -r and -h, which every such command takes.
      # Returns [options, the arguments left]; a mistake in them is a
      # ConfigError that points at `name --help`.
      #
      #   options, jids = parse_options("deckhand cancel", "Usage: deckhand cancel JID... [options]\n\n") do |p, options|
      #     p.on("--grace SECONDS", Float, "Seconds a running job has to stop by itself") { |v| options[:grace] = v }
      #   end
      def parse_options(name, banner, require_help: "File to load first (Deckhand.configure)")
        options = {}
        rest = OptionParser.new do |p|
          p.banner = banner
          yield p, options if block_given?
          p.on("--redis URL", "Redis URL(s), comma-separated for a cluster (default: REDIS_URL, else 127.0.0.1:6379)") { |v| options[:redis_url] = v }
          p.on("-r", "--require FILE", require_help) { |v| options[:require] = v }
          p.on("-h", "--help", "Show this help") { options[:help] = p.help }
        end.parse(@argv)
        [options, rest]
      rescue OptionParser::ParseError => e
        raise ConfigError, "#{e.message} (see #{name} --help)"
      end

      # What a command that reads the fleet does first: loads the file given
      # with -r (the application's Deckhand.configure), points the default
      # configuration at --redis when given (comma-separated nodes: a cluster), and checks that Redis answers
      # and can run Deckhand.
      def connect(options)
        require File.expand_path(options[:require]) if options[:require]
        Deckhand.config = Config.new(redis: Deckhand.redis_options(options[:redis_url])) if options[:redis_url]
        Deckhand.config.store.verify!
      end

      # A failure the user can fix: its message, and its cause when that adds
      # something, instead of a backtrace. Returns the exit status, 1.
      def report(prefix, error)
        @err.puts("#{prefix}: #{error.message}")
        cause = error.cause
        @err.puts("  caused by #{cause.class}: #{cause.message}") if cause && !error.message.include?(cause.message)
        1
      end
    end
  end
end
