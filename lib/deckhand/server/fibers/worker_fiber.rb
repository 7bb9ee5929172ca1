# frozen_string_literal: true

module Deckhand
  module Server
    module Fibers
      # One long-lived worker fiber of a fiber capsule, the fiber counterpart of
      # a Processor thread: takes a job from its capsule's fetcher, runs it
      # with the same JobRunner, repeats. Fibers are pooled: a capsule of 1000
      # starts 1000 once and keeps them, never one per job. When a worker's
      # fiber dies holding a job, its replacement first settles that job as a
      # failure (Deckhand::ThreadDied), as a replacement processor thread does.
      #
      #   worker = WorkerFiber.new("io-0", fetcher, runner)
      #   error = worker.run(nil)      # inside a fiber; nil once the capsule closed
      #   worker.run(error) if error   # the replacement settles the job first
      class WorkerFiber
        attr_reader :name, :fiber

        def initialize(name, fetcher, runner)
          @name = name
          @fetcher = fetcher
          @runner = runner
          @unit = nil
          @fiber = nil
        end

        def busy? = !@unit.nil?

        # The worker's loop, in the calling fiber. Returns nil when the capsule
        # has no more jobs to give (shutdown), or the exception that ended it.
        def run(previous)
          @fiber = Fiber.current
          # Fiber-local: each fiber logs and shows on the Busy page as a worker of its own.
          Thread.current[:deckhand_tid] = (@fiber.object_id ^ ::Process.pid).to_s(36)
          abandon(previous) if previous
          while (unit = @fetcher.take)
            @unit = unit
            @runner.run(unit)
            @unit = nil
          end
          nil
        rescue Exception => e # rubocop:disable Lint/RescueException -- a worker's death, whatever its cause, is handled by its pool
          e
        end

        # Settles the job a dead fiber (or the reactor's dead thread) held.
        def abandon(error)
          unit = @unit
          @unit = nil
          @runner.abandoned(unit, error) if unit && !unit.settled?
        end
      end
    end
  end
end
