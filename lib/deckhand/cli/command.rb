# frozen_string_literal: true

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
