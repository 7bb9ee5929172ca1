# frozen_string_literal: true

require_relative "server"
require_relative "lifecycle"

module Deckhand
  # A small Deckhand server inside another process, such as a Puma web server
  # for a tiny app that does not want a second process to deploy.
  #
  #   require "deckhand/embedded"
  #
  #   deckhand = Deckhand.embed { |config| config.concurrency = 2 }
  #   deckhand.on_stop { StatsD.flush }
  #   deckhand.start
  #   ...
  #   deckhand.stop   # when the host shuts down: hands unfinished jobs back
  #
  # The host process owns its signals, so the embedded server never traps any
  # and never kills its host: a stop sent from the dashboard stops the server
  # only. Its threads share the host's GVL; see docs/embedding.md for the limits.
  class Embedded
    attr_reader :config

    def initialize(config)
      @config = config
      @lock = Mutex.new
      @start_hooks = []
      @stop_hooks = []
      @launcher = nil
    end

    # Called after the server has started, and after it has stopped.
    def on_start(&block) = add(@start_hooks, block)

    # Runs the block after the server has stopped.
    def on_stop(&block) = add(@stop_hooks, block)

    # Starts the server's threads and returns self. Freezes the configuration.
    def start
      @lock.synchronize do
        raise Error, "this embedded Deckhand server has already run; build a new one with Deckhand.embed" if @launcher
        @config.freeze!
        Lifecycle.reset!
        @launcher = Server::Launcher.new(@config, on_signal: ->(signal) { remote(signal) },
          on_fatal: ->(_error) { run_hooks(@stop_hooks, "on_stop") }, embedded: true)
        @launcher.start
      end
      run_hooks(@start_hooks, "on_start")
      self
    end

    # Whether the server runs and is not stopping.
    def running? = !@launcher.nil? && !@launcher.stopping?

    # The running server's identity in Redis (as the dashboard shows it), or nil before #start.
    def identity = @launcher&.identity

    # Finish running jobs, take no more.
    def quiet = @launcher&.quiet

    # Quiet, wait up to config.timeout for running jobs, hand the rest back to
    # their queues. Safe to call twice, and from any thread.
    def stop
      launcher = @lock.synchronize { @launcher }
      return unless launcher && !launcher.stopping?
      Lifecycle.stopping!
      launcher.stop
      run_hooks(@stop_hooks, "on_stop")
    end

    private

    def add(list, block)
      raise ArgumentError, "give a block" unless block
      list << block
      self
    end

    # A signal sent from the dashboard arrives on the heartbeat thread, which
    # a stop waits for: the stop runs on a thread of its own.
    def remote(signal)
      case signal
      when "TSTP" then quiet
      when "TERM", "INT" then Component.errand("stop", logger: @config.logger) { stop }
      when "TTIN" then Thread.list.each { |t| @config.logger.warn("thread #{t.name || t.object_id}: #{t.status}\n    #{(t.backtrace || []).join("\n    ")}") }
      end
    end

    def run_hooks(hooks, what)
      hooks.each do |hook|
        hook.call(self)
      rescue => e
        @config.logger.error("embedded Deckhand #{what} hook raised #{e.class}: #{e.message}")
      end
    end
  end

  # Builds an embedded server on `config` (the default configuration unless
  # given), after yielding it to the block to adjust. Call #start on it.
  def self.embed(config = Deckhand.config)
    raise ArgumentError, "expected a Deckhand::Config, got #{config.class}" unless config.is_a?(Config)
    yield config if block_given?
    Embedded.new(config)
  end
end
