# frozen_string_literal: true

require_relative "../../component"
require_relative "loader"
require_relative "shield"
require_relative "worker_fiber"

module Deckhand
  module Server
    module Fibers
      # A fiber capsule's workers: `concurrency` pooled worker fibers on one
      # thread running an async reactor, fed by the capsule's Fetcher and run
      # by its JobRunner exactly as processor threads are. To the capsule it
      # looks like one processor: start, stop, join, kill.
      #
      # Supervision happens at two levels. A worker fiber that dies (an
      # exception that escaped the failure path) is logged with its
      # backtrace and replaced by a new fiber that first settles its job. A
      # job that ends the reactor's thread (Thread.exit) ends every fiber on
      # it: the thread is restarted like any component's, and first settles,
      # as failures, the jobs all its fibers held.
      #
      #   pool = Pool.new(capsule, fetcher, runner, shield, logger: logger).start
      #   pool.stop.join(25)   # the workers end once the fetcher closes
      #   pool.kill            # shutdown timeout: interrupts the jobs still running
      class Pool < Component
        TICK = 0.05 # how often the reactor notes it is alive (Watchdog)

        attr_reader :workers

        def initialize(spec, fetcher, runner, shield, logger:)
          super("#{spec.name}-fibers", logger: logger, delays: [0], max_crashes: nil)
          @workers = Array.new(spec.concurrency) { |i| WorkerFiber.new("#{spec.name}-#{i}", fetcher, runner) }
          @shield = shield
          @events = Thread::Queue.new
          @beat = now
        end

        def busy? = @workers.any?(&:busy?)

        # Jobs its fibers run now.
        def running = @workers.count(&:busy?)

        # Seconds since the reactor last ran its ticker: how long a fiber has
        # held the thread without giving way.
        def lag = now - @beat

        # Interrupts the jobs still running after the shutdown timeout. Their
        # in-flight entries stay, so they go back to their queues.
        def kill
          stop
          @events << [:kill]
        end

        private

        def run
          Sync do |task|
            ticker = task.async(transient: true) { tick }
            @workers.each { |worker| spawn_worker(task, worker, nil) }
            supervise_workers(task)
            ticker.stop
          end
        end

        # Every worker either ends (the capsule closed) or is replaced.
        def supervise_workers(task)
          live = @workers.size
          while live.positive?
            kind, worker, error = @events.pop
            if kind == :kill
              interrupt_jobs
            elsif error && !stopping?
              crashed_worker(task, worker, error)
            else
              live -= 1
            end
          end
        end

        def spawn_worker(task, worker, error)
          task.async { @events << [:ended, worker, worker.run(error)] }
        end

        def crashed_worker(task, worker, error)
          trace = error.backtrace ? "\n  #{error.backtrace.first(25).join("\n  ")}" : ""
          @logger.error("#{worker.name} crashed: #{error.class}: #{error.message}; restarting its fiber#{trace}")
          spawn_worker(task, worker, error)
        end

        def interrupt_jobs
          @workers.each do |worker|
            fiber = worker.fiber
            next unless fiber&.alive? && @shield.inside?(fiber)
            Fiber.scheduler.raise(fiber, Deckhand::Shutdown, "shutdown timeout expired")
          end
        end

        def tick
          loop do
            @beat = now
            sleep TICK
          end
        end

        # On a new thread, after the reactor's thread died: every fiber died
        # with it, so every job they held is settled.
        def recover(error)
          @beat = now
          @workers.each { |worker| worker.abandon(error) }
        end

        def wake = nil
      end
    end
  end
end
