# frozen_string_literal: true

module DeckhandBench
  # What one concurrent I/O-bound job costs in memory on a capsule of
  # threads and on a capsule of fibers: a Deckhand server runs `n` jobs that
  # each wait HOLD seconds, all at once, for n = SMALL and n = LARGE, and the
  # difference of the two peak resident sizes, over LARGE - SMALL, is the
  # cost of one more worker with its job (its stack, its Ruby objects).
  #
  #   IoMemory.new(lab: lab, system: system, push: ->(n) { ... }).per_job(:fibers)  # => KB
  class IoMemory
    SMALL = 10
    LARGE = 1000
    HOLD = 3

    attr_reader :peaks

    def initialize(lab:, system:, push:)
      @lab = lab
      @system = system
      @push = push
      @peaks = {}
    end

    # KB per concurrent job on a capsule of `kind` (:threads or :fibers).
    def per_job(kind)
      small = peak(kind, SMALL)
      large = peak(kind, LARGE)
      @peaks[kind] = large
      (large - small).fdiv(LARGE - SMALL)
    end

    private

    def peak(kind, n)
      @lab.fresh!
      child = @lab.server(@system, argv(kind, n), expect: n)
      sampler = Thread.new { sample(child.pid) }
      @push.call(n, HOLD)
      child.wait_report(@lab.redis, Probe::FINISHED, timeout: 120) {}
      sampler.kill.join
      @highest
    ensure
      child&.stop
    end

    def argv(kind, n)
      return [*@system.server(threads: 1, queues: ["noop"]), "-g", "io:#{n}:io"] if kind == :threads
      yml = File.join(@lab.dir, "io-fibers-#{n}.yml")
      File.write(yml, "concurrency: 1\nqueues: [noop]\ncapsules:\n  io: {concurrency: #{n}, queues: [io], fibers: true}\n")
      [DeckhandBench::Systems::DeckhandSystem::EXE, "-r", @system.app, "-C", yml]
    end

    def sample(pid)
      @highest = 0
      loop do
        kb = File.read("/proc/#{pid}/status")[/^VmRSS:\s+(\d+)/, 1].to_i
        @highest = kb if kb > @highest
        sleep 0.05
      end
    rescue Errno::ENOENT, Errno::ESRCH
      @highest
    end
  end
end
