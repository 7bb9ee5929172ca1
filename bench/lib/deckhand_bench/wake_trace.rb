# frozen_string_literal: true

module DeckhandBench
  # Where an idle server spends the time between a push and the start of
  # its job: a wall-clock stamp (CLOCK_REALTIME, comparable with the
  # pusher's) at each step of the wake-up path, and the objects allocated
  # between steps, one line per job of BenchLatencyJob in the file
  # BENCH_WAKE_TRACE names. Bench code only: deckhand_app.rb and
  # sidekiq_app.rb install it in the server process when BENCH_WAKE_TRACE
  # is set, wrapping the server's own parts; bench/wake_path.rb reads the
  # file. One job at a time (scenario 3), so one set of stamps is enough.
  # The stamps cost the server a few µs; the line is written after the
  # probe has reported.
  #
  #   DeckhandBench::WakeTrace.install("tmp/wake.txt")                    # in a Deckhand server process
  #   DeckhandBench::WakeTrace.install("tmp/wake.txt", system: :sidekiq)  # in a Sidekiq one
  #   DeckhandBench::WakeTrace.read("tmp/wake.txt")  # => [{"moved" => 210, ...}, ...] (µs after the push; -1: not stamped)
  module WakeTrace
    # The steps in order: the blocking pop answered with the job (Deckhand:
    # the idle waiter's BLMOVE; Sidekiq: a processor's BRPOP), the fetcher
    # told (Fetcher#landed), the job in the buffer, a processor took it (these
    # three are Deckhand's alone), the job's run began (Deckhand: JobRunner,
    # Sidekiq: Processor#process), the job class's perform was called, the
    # job's body ran (the probe's report).
    STEPS = %w[moved landed buffered taken run perform started].freeze

    # The idle waiter's BLMOVE (Store::Connection::Dedicated).
    module Moved
      private

      def blocking_move(...)
        super.tap { |moved, _| WakeTrace.stamp(:moved) if moved }
      end
    end

    module Landed
      def landed(...)
        WakeTrace.stamp(:landed)
        super
      end
    end

    module Buffered
      def push(unit) = super.tap { WakeTrace.stamp(:buffered) }

      def pop(**options) = super.tap { WakeTrace.stamp(:taken) }
    end

    module Run
      def run(unit, *held)
        WakeTrace.stamp(:run)
        super
      end

      private

      def perform(...)
        WakeTrace.stamp(:perform)
        super
      end
    end

    # Sidekiq's processor, which pops the job itself (BasicFetch's BRPOP).
    module SidekiqMoved
      def retrieve_work = super.tap { |work| WakeTrace.stamp(:moved) if work }
    end

    module SidekiqRun
      private

      def process(uow)
        WakeTrace.stamp(:run)
        super
      end

      def execute_job(...)
        WakeTrace.stamp(:perform)
        super
      end
    end

    # The latency job's body: the line for this job, written once the
    # probe has reported (a file write would add to the latency reported).
    module Started
      def started(pushed_at)
        WakeTrace.stamp(:started)
        super
      ensure
        WakeTrace.write(pushed_at)
      end
    end

    @stamps = {}
    @objects = {}

    class << self
      def install(path, system: :deckhand)
        @out = File.open(path, "a")
        @out.sync = true
        if system == :sidekiq
          require "sidekiq/fetch"
          require "sidekiq/processor"
          Sidekiq::BasicFetch.prepend(SidekiqMoved)
          Sidekiq::Processor.prepend(SidekiqRun)
        else
          require_relative "../../../lib/deckhand/server"
          Deckhand::Store::Connection::Dedicated.prepend(Moved)
          Deckhand::Server::Fetch::Fetcher.prepend(Landed)
          Deckhand::Server::Fetch::Buffer.prepend(Buffered)
          Deckhand::Server::Run::JobRunner.prepend(Run)
        end
        Probe.singleton_class.prepend(Started)
      end

      def stamp(step)
        @objects[step] = GC.stat(:total_allocated_objects)
        @stamps[step] = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
      end

      # One line: each step's µs after the push, then the objects allocated
      # since the step before that was stamped (none for the first, 0 for a
      # step the system does not have: Sidekiq's pop is followed by its run).
      def write(pushed_at)
        times = STEPS.map { |step| @stamps[step.to_sym]&.then { |at| ((at - pushed_at) * 1_000_000).round } || -1 }
        objects = STEPS.drop(1).map { |step| objects_before(step.to_sym) }
        @out.puts((times + objects).join(" "))
        @stamps.clear
        @objects.clear
      end

      # The lines of a trace file as Hashes: step => µs after the push, and
      # "objects:step" => objects allocated since the step before.
      def read(path)
        File.readlines(path).map do |line|
          numbers = line.split.map(&:to_i)
          STEPS.zip(numbers).to_h.merge(STEPS.drop(1).map { |step| "objects:#{step}" }.zip(numbers.drop(STEPS.size)).to_h)
        end
      end

      private

      # The objects allocated since the step before `step` that was stamped.
      def objects_before(step)
        return 0 unless @objects.key?(step)
        earlier = STEPS.take_while { |name| name != step.to_s }.reverse.find { |name| @objects.key?(name.to_sym) }
        earlier ? @objects[step] - @objects[earlier.to_sym] : 0
      end
    end
  end
end
