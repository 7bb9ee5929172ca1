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
