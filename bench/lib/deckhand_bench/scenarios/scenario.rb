# frozen_string_literal: true

require_relative "../probe"
require_relative "../failure"

module DeckhandBench
  module Scenarios
    # What every scenario shares: rounds with the systems taking turns to go
    # first (so neither always runs on a warmer machine), pushing with each
    # system's own client, waiting for a server child with progress.
    #
    #   class Mine < Scenario
    #     def title = "My figure"
    #     def figures = [Figure.new(key: :mine, label: "Mine", unit: "s", digits: 1)]
    #     def measure(system, round) = results.add(:mine, system.name, 1.0)
    #   end
    class Scenario
      attr_reader :lab, :plan, :results, :systems

      def initialize(lab:, plan:, results:, systems:, out:)
        @lab = lab
        @plan = plan
        @results = results
        @systems = systems
        @out = out
        @clients = {}
      end

      def run
        figures.each { |figure| results.declare(figure) }
        (1..plan.rounds).each do |round|
          each_setting do |setting|
            turns(round).each { |system| measure(system, round, *setting) }
          end
        end
      end

      # Scenarios measured at several settings (thread counts, delays) override this.
      def each_setting = yield([])

      private

      def turns(round) = round.odd? ? systems : systems.reverse

      def say(text) = @out.puts("    #{text}")

      def client(system) = @clients[system.name] ||= system.client(lab.url)

      def push_bulk(system, klass, queue, count)
        list = Array.new(count) { |i| Probe.args(i) }
        system.push_bulk(client(system), klass, queue, list)
      end

      # Waits for the probe's report, showing how far the queues have drained.
      def wait(child, system, queues:, timeout:)
        report = child.wait_report(lab.redis, Probe::FINISHED, timeout: timeout) do |elapsed|
          left = queues.sum { |q| lab.redis.call("LLEN", "queue:#{q}") }
          ticker("#{system.name}: #{elapsed.round} s, #{left} jobs still queued")
        end
        ticker(nil)
        JSON.parse(report)
      end

      def ticker(text)
        return unless @out.respond_to?(:tty?) && @out.tty?
        @out.print(text ? "\r    #{text}\e[K" : "\r\e[K")
      end

      def realtime = ::Process.clock_gettime(::Process::CLOCK_REALTIME)

      def rate(report) = report["jobs"] / report["seconds"]
    end
  end
end
