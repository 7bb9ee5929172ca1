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
    end
  end
end
