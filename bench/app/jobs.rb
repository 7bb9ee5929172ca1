# frozen_string_literal: true

require_relative "../lib/deckhand_bench/probe"

module DeckhandBench
  # The benchmark's jobs, defined once on top of either system's job mixin,
  # so Deckhand and Sidekiq run exactly the same bodies.
  #
  #   DeckhandBench::Jobs.define(Deckhand::Job)   # or Sidekiq::Job
  module Jobs
    module_function

    def define(mixin)
      job(:BenchNoopJob, mixin) { |_name, _number, _options| Probe.tick }
      job(:BenchCpuJob, mixin) do |_name, _number, _options|
        Probe.sieve(Probe::SIEVE_LIMIT)
        Probe.tick
      end
      job(:BenchIoJob, mixin) do |_name, _number, _options|
        sleep Probe::IO_SECONDS
        Probe.tick
      end
      job(:BenchLatencyJob, mixin) { |_name, _number, options| Probe.started(options["pushed_at"]) }
      # Waits `hold` seconds: many at once show what a concurrent I/O job costs in memory.
      job(:BenchHoldJob, mixin) do |_name, _number, options|
        sleep options["hold"]
        Probe.tick
      end
    end

    def job(name, mixin, &body)
      klass = Class.new { include mixin }
      klass.define_method(:perform, &body)
      Object.const_set(name, klass)
    end
  end
end
