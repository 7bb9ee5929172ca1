# frozen_string_literal: true

require_relative "../../component"
require_relative "job_runner"

module Deckhand
  module Server
    module Run
      # One worker thread: takes a job from its capsule's fetcher, runs it,
      # repeats. Supervised like every component, and restarted at once when its
      # thread dies (a job that called Thread.exit, an error that escaped the
      # failure path): the new thread first settles the job the old one held, as
      # a failure with Deckhand::ThreadDied, so no job is left in flight in a
      # live process and the capsule keeps its full concurrency.
      class Processor < Component
        def initialize(name, fetcher, runner, logger:)
          super(name, logger: logger, delays: [0], max_crashes: nil)
          @fetcher = fetcher
          @runner = runner
          @held = [] # the job it runs, or a chunk's members (Run::ChunkRunner)
          # Its own blocking pop when idle (Fetch::Idle::ProcessorWait), or nil.
          @wait = fetcher.processor_wait
        end

        def busy? = !@held.empty?

        # Jobs it runs now (a fiber pool runs many).
        def running = busy? ? 1 : 0

        # Interrupts a job that outlived the shutdown timeout. Its in-flight entry
        # stays, so the job goes back to its queue.
        def kill
          stop
          thread = self.thread
          thread.raise(Deckhand::Shutdown, "shutdown timeout expired") if thread&.alive?
        end

        private

        # The shutdown interrupt reaches this thread only while a job runs
        # (JobRunner lets it through around the job itself).
        def run
          Thread.handle_interrupt(Run::JobRunner::MASKED) do
            while (unit = @fetcher.take(@wait))
              @held << unit
              @runner.run(unit, @held)
              @held.clear
            end
          end
        rescue Deckhand::Shutdown
          nil
        ensure
          @wait&.close
        end

        def recover(error)
          held = @held.dup
          @held.clear
          held.each do |unit|
            Thread.handle_interrupt(Run::JobRunner::MASKED) { @runner.abandoned(unit, error) } unless unit.settled?
          end
        end
      end
    end
  end
end
