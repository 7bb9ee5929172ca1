# frozen_string_literal: true

require_relative "job_runner"

module Deckhand
  module Server
    # One worker thread: takes a job from its capsule's fetcher, runs it, repeats.
    class Processor
      attr_reader :thread

      def initialize(fetcher, runner)
        @fetcher = fetcher
        @runner = runner
        @busy = false
      end

      def start(name)
        @thread = Thread.new do
          Thread.current.name = name
          Thread.current.report_on_exception = false
          run
        end
        self
      end

      def busy? = @busy

      # Interrupts a job that outlived the shutdown timeout. Its in-flight entry
      # stays, so the job goes back to its queue.
      def kill
        @thread.raise(Deckhand::Shutdown, "shutdown timeout expired") if @thread&.alive?
      end

      private

      def run
        while (unit = @fetcher.take)
          @busy = true
          @runner.run(unit)
          @busy = false
        end
      rescue Deckhand::Shutdown
        nil
      end
    end
  end
end
