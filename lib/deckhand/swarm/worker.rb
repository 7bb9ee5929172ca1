# frozen_string_literal: true

require_relative "../server/signals"
require_relative "../lifecycle"
require_relative "lifeline"

module Deckhand
  class Swarm
    # What runs inside a forked worker: its own Launcher (own identity, own
    # Redis connections, since Config#store builds a new pool in a new pid),
    # its own signal handling, and a watch on the supervisor. The application
    # is already loaded: the worker shares those pages with the supervisor
    # until it writes to them.
    class Worker # :nodoc:
      def initialize(config, index:, lifeline:, hooks:, early_signals:)
        @config = config
        @logger = config.logger
        @index = index
        @lifeline = lifeline
        @hooks = hooks
        @early_signals = early_signals
      end

      # Never returns: the process ends here, without the supervisor's at_exit
      # handlers (they belong to the supervisor: a private Redis it started,
      # for one).
      def run
        status = serve
        exit_now(status)
      rescue Exception => e # rubocop:disable Lint/RescueException -- the last word of a dying worker
        @logger.error("worker #{@index} failed: #{e.class}: #{e.message}")
        (e.backtrace || []).first(10).each { |line| @logger.error("    #{line}") }
        exit_now(1)
      end

      private

      def serve
        ::Process.setproctitle("deckhand worker #{@index}")
        ENV["DECKHAND_WORKER"] = @index.to_s
        @hooks.each { |hook| hook.call(@index) }
        signals = nil
        launcher = Server::Launcher.new(@config, on_fatal: ->(_error) { signals.fatal! })
        signals = Server::Signals.new(launcher, @logger)
        signals.trap
        replay_early_signals
        watch_supervisor
        launcher.start
        outcome = signals.wait_for_stop
        Lifecycle.stopping!
        launcher.stop
        (outcome == :fatal) ? 1 : 0
      end

      # Signals that reached this process between the fork and our own traps
      # were caught by the supervisor's handlers, which set them aside for us.
      def replay_early_signals
        @early_signals.each { |name| ::Process.kill(name, ::Process.pid) }
      end

      # A SIGKILLed supervisor leaves no worker running on its own (Lifeline).
      def watch_supervisor = Lifeline.new(@lifeline, logger: @logger).start

      def exit_now(status)
        $stdout.flush
        $stderr.flush
        Kernel.exit!(status)
      end
    end
  end
end
