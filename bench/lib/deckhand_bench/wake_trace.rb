# frozen_string_literal: true

module DeckhandBench
  # Where an idle Deckhand server spends the time between a push and the
  # start of its job: a wall-clock stamp (CLOCK_REALTIME, comparable with
  # the pusher's) at each step of the wake-up path, and the objects
  # allocated between steps, one line per job of BenchLatencyJob in the file
  # BENCH_WAKE_TRACE names. Bench code only: deckhand_app.rb installs it in
  # the server process when BENCH_WAKE_TRACE is set, wrapping the server's
  # own parts; bench/wake_path.rb reads the file. One job at a time (scenario
  # 3), so one set of stamps is enough.
  #
  #   DeckhandBench::WakeTrace.install("tmp/wake.txt")   # in a Deckhand server process
  #   DeckhandBench::WakeTrace.read("tmp/wake.txt")      # => [{"moved" => 210, ...}, ...] (µs after the push)
  module WakeTrace
    # The steps in order: the idle waiter's BLMOVE answered with the job,
    # the fetcher told (Fetcher#landed), the job in the buffer, a processor
    # took it, its JobRunner began, the job class's perform was called,
    # the job's body ran (the probe's report).
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

      def pop = super.tap { WakeTrace.stamp(:taken) }
    end

    module Run
      def run(unit)
        WakeTrace.stamp(:run)
        super
      end

      private

      def perform(...)
        WakeTrace.stamp(:perform)
        super
      end
    end

    # The latency job's body: the line for this job.
    module Started
      def started(pushed_at)
        WakeTrace.write(pushed_at)
        super
      end
    end

    @stamps = {}
    @objects = {}

    class << self
      def install(path)
        require_relative "../../../lib/deckhand/server"
        @out = File.open(path, "a")
        @out.sync = true
        Deckhand::Store::Connection::Dedicated.prepend(Moved)
        Deckhand::Server::Fetch::Fetcher.prepend(Landed)
        Deckhand::Server::Fetch::Buffer.prepend(Buffered)
        Deckhand::Server::Run::JobRunner.prepend(Run)
        Probe.singleton_class.prepend(Started)
      end

      def stamp(step)
        @objects[step] = GC.stat(:total_allocated_objects)
        @stamps[step] = ::Process.clock_gettime(::Process::CLOCK_REALTIME)
      end

      # One line: each step's µs after the push, then the objects allocated
      # from the step before (none for the first).
      def write(pushed_at)
        stamp(:started)
        times = STEPS.map { |step| @stamps[step.to_sym]&.then { |at| ((at - pushed_at) * 1_000_000).round } || -1 }
        objects = STEPS.each_cons(2).map { |before, after| @objects.fetch(after.to_sym, 0) - @objects.fetch(before.to_sym, 0) }
        @out.puts((times + objects).join(" "))
        @stamps.clear
      end

      # The lines of a trace file as Hashes: step => µs after the push, and
      # "objects:step" => objects allocated since the step before.
      def read(path)
        File.readlines(path).map do |line|
          numbers = line.split.map(&:to_i)
          STEPS.zip(numbers).to_h.merge(STEPS.drop(1).map { |step| "objects:#{step}" }.zip(numbers.drop(STEPS.size)).to_h)
        end
      end
    end
  end
end
