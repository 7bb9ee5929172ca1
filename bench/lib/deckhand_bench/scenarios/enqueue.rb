# frozen_string_literal: true

require "json"
require_relative "scenario"
require_relative "../figure"

module DeckhandBench
  module Scenarios
    # Scenario 6: how fast an application pushes, in a fresh process per
    # system (bench/app/enqueue.rb): `perform_async` one by one, then
    # `perform_bulk` (1,000 jobs per call in both systems).
    class Enqueue < Scenario
      SCRIPT = File.expand_path("../../../app/enqueue.rb", __dir__)

      def title = "Enqueue rate (#{plan.enqueue_single} perform_async, #{plan.enqueue_bulk} perform_bulk)"

      def figures
        [
          Figure.new(key: :enqueue_single, label: "6. perform_async, one by one", unit: "jobs/s", digits: 0),
          Figure.new(key: :enqueue_bulk, label: "6. perform_bulk (Sidekiq: push_bulk), 1,000 per call", unit: "jobs/s",
            digits: 0, target: ">= 1.5x Sidekiq", check: ->(r) { r.ratio(:enqueue_bulk)&.>=(1.5) })
        ]
      end

      def measure(system, _round)
        lab.fresh!
        rates = JSON.parse(lab.run(SCRIPT, system.name, plan.enqueue_single, plan.enqueue_bulk).lines.last)
        results.add(:enqueue_single, system.name, rates.fetch("single"))
        results.add(:enqueue_bulk, system.name, rates.fetch("bulk"))
        say("#{system.name}: perform_async #{rates["single"].round} jobs/s (#{rates["single_cpu_us"].round(1)} µs of CPU, " \
          "#{rates["single_objects"].round(1)} objects a push), perform_bulk #{rates["bulk"].round} jobs/s")
      end
    end
  end
end
