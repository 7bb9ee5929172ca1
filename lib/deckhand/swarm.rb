# frozen_string_literal: true

require "io/wait"
require_relative "server"
require_relative "swarm/settings"
require_relative "swarm/slot"
require_relative "swarm/roster"
require_relative "swarm/memory"
require_relative "swarm/signal_box"
require_relative "swarm/worker"

module Deckhand
  # Several server processes on one machine, for work that needs more than one
  # core: the supervisor loads the application once, then forks the workers,
  # which share its memory copy-on-write. `deckhand -P 4` runs one.
  #
  #   swarm = Deckhand::Swarm.new(config, processes: 4, max_memory_mb: 1024)
  #   swarm.run    # until TERM or INT; returns the exit status
  #
  #   # in the application, for what a forked worker must open for itself:
  #   Deckhand::Swarm.on_worker_boot { |index| Metrics.reconnect }
  #
  # The supervisor restarts a worker that dies (waiting longer each time while
  # workers keep dying at boot), replaces a worker whose resident memory passes
  # max_memory_mb (a new one starts, the old one stops gracefully), forwards
  # TSTP, TTIN, TERM and INT to every worker, and on TERM waits for all of them
  # to finish. Workers stop by themselves when the supervisor dies.
  class Swarm
    # Seconds between two reads of the workers' memory (--max-memory).
    MEMORY_CHECK_INTERVAL = 2.0
    # Beyond the workers' own shutdown timeout, before the supervisor KILLs them.
    STOP_GRACE = 10.0

    @boot_hooks = []

    class << self
      # Runs in each new worker, before its server starts, with its index (0..K-1).
      def on_worker_boot(&block)
        raise ArgumentError, "give a block" unless block
        @boot_hooks << block
      end

      attr_reader :boot_hooks

      def wanted?(settings) = Settings.wanted?(settings) # :nodoc:

      def from_settings(config, settings) # :nodoc:
        new(config, processes: Settings.processes(settings.fetch(:processes, 1)), max_memory_mb: settings[:max_memory])
      end
    end

    def initialize(config, processes:, max_memory_mb: nil)
      Settings.require_fork!
      @config = config
      @logger = config.logger
      @roster = Roster.new(processes, @logger)
      @max_rss_kb = Settings.max_memory_mb(max_memory_mb)&.*(1024)
      @signals = SignalBox.new
      @stopping = false
      @quiet = false
    end

    def run # :nodoc:
      @signals.trap
      prepare_to_fork
      limit = @max_rss_kb ? ", replacing any over #{@max_rss_kb / 1024} MB" : ""
      @logger.info("swarm supervisor (pid #{::Process.pid}) starting #{@roster.slots.size} workers#{limit}")
      check_limit_at_start
      @lifeline, @lifeline_writer = IO.pipe
      @roster.slots.each { |slot| spawn(slot) }
      supervise
      stop_all
      @logger.info("swarm stopped")
      0
    end

    private

    def now = Monotonic.now

    # No Redis connection crosses the fork, and the heap is compacted first so
    # the workers share as many pages as they can.
    def prepare_to_fork
      @config.store.shutdown
      ::Process.setproctitle("deckhand swarm supervisor (#{@roster.slots.size} workers)")
      GC.start
      GC.compact if GC.respond_to?(:compact)
    rescue NotImplementedError
      nil # a platform without compaction
    end

    def spawn(slot)
      pid = fork do
        @lifeline_writer.close
        early = @signals.close_in_child
        Worker.new(@config, index: slot.index, lifeline: @lifeline, hooks: self.class.boot_hooks, early_signals: early).run
      end
      slot.started(pid, now)
      @logger.info("swarm: worker #{slot.index} started as pid #{pid}")
    end

    def supervise
      next_memory_check = now + MEMORY_CHECK_INTERVAL
      until @stopping
        @roster.reap(now)
        @roster.slots.each { |slot| spawn(slot) if !@quiet && slot.due?(now) }
        if @max_rss_kb && !@quiet && now >= next_memory_check
          Memory.over(@roster.slots, @max_rss_kb).each { |slot, rss| replace(slot, rss) }
          next_memory_check = now + MEMORY_CHECK_INTERVAL
        end
        @signals.wait(wait_time).each { |name| handle(name) }
      end
    end

    # Short enough to restart a worker when its backoff ends.
    def wait_time = [0.5, *@roster.slots.filter_map(&:restart_at).map { |at| at - now }].min.clamp(0.01, 0.5)

    def handle(name)
      case name
      when "TERM", "INT"
        @logger.info("swarm: received #{name}: stopping every worker (timeout #{@config.timeout}s)")
        @stopping = true
        @roster.stopping!
      when "TSTP"
        @logger.info("swarm: received TSTP: quieting every worker")
        @quiet = true
        @roster.signal_all("TSTP")
      when "TTIN"
        report
        @roster.signal_all("TTIN")
      end
    end

    # The new worker starts at once; the old one finishes its running jobs (up
    # to the timeout) and exits. A worker over the limit while it boots (a
    # loaded machine boots slowly) says the limit is one no worker can meet.
    def replace(slot, rss_kb)
      if slot.age(now) <= Slot::BOOT_WINDOW
        warn_limit_once(Memory.fresh_over(@max_rss_kb, rss_kb, "worker #{slot.index} (pid #{slot.pid}) was over it " \
          "#{slot.age(now).round(1)}s after it started, at"))
      end
      @logger.warn("swarm: worker #{slot.index} (pid #{slot.pid}) uses #{rss_kb / 1024} MB, over the " \
        "#{@max_rss_kb / 1024} MB limit: replacing it")
      @roster.retire(slot)
      spawn(slot)
    end

    # A worker starts from the supervisor's memory (the application loaded,
    # shared copy-on-write, which a worker's RSS counts): a limit below it
    # is one no worker can meet.
    def check_limit_at_start
      rss = @max_rss_kb && Server::ResidentMemory.rss_kb(::Process.pid)
      return unless rss && rss > @max_rss_kb
      warn_limit_once(Memory.fresh_over(@max_rss_kb, rss, "the supervisor, which each worker starts from, uses"))
    end

    def warn_limit_once(message)
      return if @limit_warned
      @limit_warned = true
      @logger.warn(message)
    end

    def report
      @roster.slots.each do |slot|
        rss = slot.pid && Server::ResidentMemory.rss_kb(slot.pid)
        @logger.warn("swarm: worker #{slot.index}: pid #{slot.pid || "-"}, up #{slot.age(now).round}s, " \
          "rss #{rss ? rss / 1024 : "-"} MB, #{slot.failures} failures at boot")
      end
    end

    # TERM to every worker, then wait for each one's graceful stop. Those still
    # running well past their shutdown timeout are KILLed: their jobs stay
    # in-flight, for recovery.
    def stop_all
      @roster.signal_all("TERM")
      limit = @config.timeout + STOP_GRACE
      deadline = now + limit
      loop do
        @roster.reap(now)
        break if @roster.empty?
        if now > deadline
          @logger.error("swarm: workers #{@roster.pids.join(", ")} still running #{limit.round}s after TERM: killing them")
          @roster.signal_all("KILL")
          deadline = Float::INFINITY
        end
        @signals.wait(0.05)
      end
    end
  end
end
