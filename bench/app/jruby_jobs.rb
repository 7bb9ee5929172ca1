# frozen_string_literal: true

require_relative "../lib/deckhand_bench/probe"

module DeckhandBench
  # The jobs bench/jruby.rb adds to the common ones (jobs.rb): 20 ms of pure
  # Ruby arithmetic (BENCH_ARITH_ROUNDS, sized by the bench on MRI, the same
  # work on every Ruby) and, for Deckhand, an iterable job of ten steps.
  #
  #   DeckhandBench::JRubyJobs.define(Deckhand::Job)
  module JRubyJobs
    ROUNDS = Integer(ENV.fetch("BENCH_ARITH_ROUNDS", "300000"))
    STEPS = (1..10).to_a.freeze

    module_function

    def define(mixin)
      Jobs.job(:BenchArithmeticJob, mixin) do |_name, _number, _options|
        Probe.arithmetic(ROUNDS)
        Probe.tick
      end
      define_iterable if defined?(::Deckhand::IterableJob) && mixin == ::Deckhand::Job
    end

    def define_iterable
      klass = Class.new do
        include ::Deckhand::IterableJob

        def build_enumerator(*, cursor:) = array_enumerator(STEPS, cursor: cursor)

        def each_iteration(_step, *) = nil

        def on_complete = Probe.tick
      end
      Object.const_set(:BenchIterableJob, klass)
    end
  end
end
