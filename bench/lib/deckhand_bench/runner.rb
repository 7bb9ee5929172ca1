# frozen_string_literal: true

require_relative "../../../lib/deckhand"
require_relative "plan"
require_relative "lab"
require_relative "results"
require_relative "report"
require_relative "stamp"
require_relative "systems/deckhand_system"
require_relative "systems/sidekiq_system"
require_relative "scenarios/throughput"
require_relative "scenarios/proxied"
require_relative "scenarios/push_latency"
require_relative "scenarios/enqueue"
require_relative "scenarios/mixed"
require_relative "scenarios/cluster"
require_relative "scenarios/partitioned"

module DeckhandBench
  # Runs the benchmark scenarios, Deckhand and Sidekiq side by side against
  # one fresh redis-server, prints progress and the table, saves the
  # Markdown report. Returns 0, or 1 if any scenario failed to complete.
  #
  #   DeckhandBench::Runner.new(scenarios: %w[throughput mixed], plan: DeckhandBench::Plan.quick).run
  class Runner
    SCENARIOS = {
      "throughput" => Scenarios::Throughput,
      "latency" => Scenarios::Proxied,
      "push" => Scenarios::PushLatency,
      "enqueue" => Scenarios::Enqueue,
      "mixed" => Scenarios::Mixed,
      "cluster" => Scenarios::Cluster,
      "partitions" => Scenarios::Partitioned
    }.freeze

    # The issue's numbering: 4 (allocations) and 5 (Redis cost) come from
    # the throughput runs.
    ALIASES = {"1" => "throughput", "2" => "latency", "3" => "push", "4" => "throughput", "5" => "throughput",
               "6" => "enqueue", "7" => "mixed", "8" => "cluster", "9" => "partitions", "allocations" => "throughput", "redis" => "throughput"}.freeze

    # Scenario names (or numbers, or aliases) to the canonical names, in
    # suite order; raises ArgumentError naming an unknown one.
    def self.resolve(names)
      return SCENARIOS.keys if names.empty?
      wanted = names.map do |name|
        key = ALIASES.fetch(name, name)
        raise ArgumentError, "unknown scenario #{name.inspect}; known: #{SCENARIOS.keys.join(", ")} (or 1-9)" unless SCENARIOS.key?(key)
        key
      end
      SCENARIOS.keys & wanted
    end

    def initialize(scenarios: [], plan: Plan.full, yjit: self.class.yjit_available?, out: $stdout,
      results_dir: "bench/results", readme: nil)
      @names = self.class.resolve(scenarios)
      @plan = plan
      @yjit = yjit
      @out = out
      @results_dir = results_dir
      @readme = readme
      @results = Results.new
    end

    def self.yjit_available? = defined?(RubyVM::YJIT) ? true : false

    def run
      systems = [Systems::DeckhandSystem.new, Systems::SidekiqSystem.load].compact
      @out.puts("Sidekiq is not installed: measuring Deckhand alone (add `gem \"sidekiq\"` to compare)") if systems.size == 1
      Lab.open(yjit: @yjit) do |lab|
        stamp = Stamp.collect(lab: lab, systems: systems, plan: @plan)
        @out.puts("Deckhand benchmark: #{stamp.title}", *stamp.lines.map { |l| "  #{l}" })
        @names.each_with_index { |name, i| run_scenario(name, i, lab, systems) }
        finish(stamp)
      end
      @results.failed? ? 1 : 0
    end

    private

    def run_scenario(name, index, lab, systems)
      scenario = SCENARIOS.fetch(name).new(lab: lab, plan: @plan, results: @results, systems: systems, out: @out)
      @out.puts("[#{index + 1}/#{@names.size}] #{scenario.title}")
      started = monotonic
      scenario.run
      @out.puts("    (#{(monotonic - started).round(1)} s)")
    rescue Failure, RedisClient::Error, Deckhand::Error, SystemCallError => e
      @results.fail(name, "#{e.class}: #{e.message}")
      @out.puts("    FAILED: #{e.class}: #{e.message}")
    end

    def finish(stamp)
      report = Report.new(@results, stamp)
      @out.puts("", report.table, "")
      path = report.save(@results_dir)
      @out.puts("Saved #{path}")
      @out.puts("Updated #{@readme}") if @readme && report.update_readme(@readme, path)
    end

    def monotonic = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end
