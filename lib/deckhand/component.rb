# frozen_string_literal: true

require_relative "errors"
require_relative "sleeper"

module Deckhand
  # Whatever runs on a long-lived thread of its own, in the server (the
  # fetcher, a processor, an idle waiter, the heartbeat, the scheduler, the
  # reaper), the client (the reliable-push buffer) or a swarm worker (its
  # watch on the supervisor), with its lifecycle in one place: start, stop,
  # join, and supervision. A thread that ends while nobody asked it to (an
  # exception, Thread.exit, a kill) is logged with its backtrace and started
  # again after a growing pause; a component that keeps crashing without ever
  # running healthily for a minute is fatal (max_crashes), and in a server
  # the launcher ends the process (exit status 1) so its own supervisor (the
  # swarm, systemd, Kubernetes) replaces it: never a process whose heartbeat
  # beats while its work has stopped, never a thread that dies in silence.
  #
  #   class Ticker < Component
  #     def initialize(logger) = super("ticker", logger: logger)
  #     private def run = (tick while @sleeper.sleep(1))
  #     private def wake = @sleeper.stop
  #   end
  #   ticker = Ticker.new(logger).start
  #   ticker.stop.join(5)
  class Component
    DELAYS = [0.1, 0.5, 1, 2, 5, 10, 30].freeze
    HEALTHY = 60 # seconds of running that forgive earlier crashes
    MAX_CRASHES = 10

    attr_reader :name, :thread

    # A short errand on a named thread of its own, for what a signal handler
    # or a dying component cannot do on its own thread (stop a server: that
    # takes locks and waits). Not supervised: it runs once. Its error, if
    # any, is logged, never silent.
    #
    #   Component.errand("stop", logger: logger) { launcher.stop }
    def self.errand(name, logger:)
      Thread.new do
        Thread.current.name = "deckhand-#{name}"
        Thread.current.report_on_exception = false
        yield
      rescue Exception => e # rubocop:disable Lint/RescueException -- an errand's death is logged, whatever its cause
        logger.error("#{name} failed: #{e.class}: #{e.message}\n  #{(e.backtrace || []).first(25).join("\n  ")}")
      end
    end

    # on_fatal: called with (component, error) when the component gives up.
    # delays: pauses before each restart (a processor restarts at once: its
    # thread died of its job, not of a fault of its own). max_crashes: nil
    # for never fatal.
    def initialize(name, logger:, on_fatal: nil, delays: DELAYS, max_crashes: MAX_CRASHES)
      @name = name
      @logger = logger
      @on_fatal = on_fatal
      @delays = delays
      @max_crashes = max_crashes
      @crashes = 0
      @stopping = false
      @pause = Sleeper.new
    end

    def start
      spawn(0)
      self
    end

    # Asks the component to finish; returns at once (see #join).
    def stop
      @stopping = true
      @pause.stop
      wake
      self
    end

    def join(timeout = nil)
      thread = @thread
      thread&.join(timeout)
    end

    def stopping? = @stopping

    def alive? = @thread&.alive? || false

    # False when its thread is dead, or waiting to restart after a crash.
    def running? = !@restarting && alive?

    private

    # The component's work: returns when stopping? turns true.
    def run = raise(NotImplementedError, "#{self.class} must define run")

    # Cuts short whatever #run waits on, so stop takes effect at once.
    def wake = nil

    # Runs on the new thread before #run restarts after a crash.
    def recover(_error) = nil

    def spawn(delay, error = nil)
      @started_at = now + delay
      @restarting = !error.nil?
      name = "deckhand-#{@name}"
      # Named on the thread itself before it does anything (on JRuby a thread
      # runs at once, before a name given from here would reach it), and
      # here, so the name shows at once to whoever lists the threads.
      @thread = Thread.new do
        Thread.current.name = name
        supervise(delay, error)
      end
      @thread.name = name
    rescue ThreadError => e
      fatal(e)
    end

    def supervise(delay, error)
      Thread.current.report_on_exception = false
      return if delay.positive? && !@pause.sleep(delay)
      return if @stopping
      done = false
      failure = nil
      begin
        recover(error) if error
        @restarting = false
        run
        done = true
      rescue Exception => e # rubocop:disable Lint/RescueException -- a component's death, whatever its cause, is handled
        failure = e
      ensure
        crashed(failure) unless done || @stopping
      end
    end

    def crashed(error)
      @crashes = 0 if now - @started_at > HEALTHY
      @crashes += 1
      describe = error ? "#{error.class}: #{error.message}" : "its thread was ended (Thread.exit or kill)"
      trace = error&.backtrace ? "\n  #{error.backtrace.first(25).join("\n  ")}" : ""
      if @max_crashes && @crashes > @max_crashes
        @logger.error("#{@name} crashed #{@crashes} times without a healthy minute; giving up: #{describe}#{trace}")
        return fatal(error || ThreadDied.new("#{@name}: #{describe}"))
      end
      delay = @delays[@crashes - 1] || @delays.last
      @logger.error("#{@name} crashed: #{describe}; restarting#{" in #{delay}s" if delay.positive?}#{trace}")
      spawn(delay, error || ThreadDied.new(describe))
    end

    def fatal(error)
      @on_fatal ? @on_fatal.call(self, error) : @logger.error("#{@name} cannot run: #{error.message}")
    end

    def now = Monotonic.now
  end
end
