# frozen_string_literal: true

require "optparse"
require_relative "runner"

module DeckhandBench
  # `bench/run [scenario...] [--rounds N] [--quick]`: Deckhand against Sidekiq
  # (when installed) on this machine, one fresh private redis-server.
  #
  #   bench/run                      # every scenario, 3 rounds, medians
  #   bench/run throughput mixed     # or by number: bench/run 1 7
  #   bench/run --quick              # small counts, one round, about a minute; exit 1 if any fails
  #   bench/run --quick --server valkey   # on a valkey-server
  #
  #   DeckhandBench::Command.run(["--quick"], out: $stdout, err: $stderr)  # => 0
  class Command
    BANNER = <<~TEXT
      Usage: bench/run [scenario...] [options]

      Runs Deckhand and Sidekiq side by side on the same no-op jobs against one fresh
      private redis-server, prints a table of medians and saves it as Markdown.
      Scenarios (default: all): #{Runner::SCENARIOS.keys.join(", ")}, or the numbers 1-9.
      Exits 1 if any scenario fails to complete.

    TEXT

    def self.run(argv = ARGV, out: $stdout, err: $stderr) = new(argv, out: out, err: err).run

    def initialize(argv, out: $stdout, err: $stderr)
      @argv = argv
      @out = out
      @err = err
    end

    def run
      options, names = parse
      return @out.puts(options[:help]) || 0 if options[:help]
      plan = options[:quick] ? Plan.quick(rounds: options[:rounds] || 1) : Plan.full(rounds: options[:rounds] || 3)
      runner = Runner.new(scenarios: names, plan: plan, out: @out,
        yjit: options.fetch(:yjit) { Runner.yjit_available? },
        results_dir: options[:results] || "bench/results", readme: options[:readme])
      runner.run
    rescue OptionParser::ParseError, ArgumentError => e
      @err.puts("bench/run: #{e.message} (see bench/run --help)")
      1
    rescue Deckhand::ConnectionError => e
      @err.puts("bench/run: #{e.message}")
      1
    end

    private

    def parse
      options = {}
      names = parser(options).parse(@argv)
      [options, names]
    end

    def parser(o)
      OptionParser.new do |p|
        p.banner = BANNER
        p.on("--quick", "Smoke run: small job counts, one round (for CI)") { o[:quick] = true }
        p.on("--rounds N", Integer, "Rounds per scenario; the table shows medians (default: 3, quick: 1)") do |v|
          raise OptionParser::InvalidArgument, "--rounds must be at least 1" if v < 1
          o[:rounds] = v
        end
        p.on("--[no-]yjit", "Run every benchmarked process with YJIT (default: on when this Ruby has it)") { |v| o[:yjit] = v }
        p.on("--server NAME", "redis (default), valkey, or a server binary's path (sets DECKHAND_REDIS_SERVER)") do |v|
          ENV[Deckhand::DevRedis::CHOICE] = Deckhand::DevRedis.binary_for(v)
        end
        p.on("--results DIR", "Where to save the Markdown report (default: bench/results)") { |v| o[:results] = v }
        p.on("--readme FILE", "Also put the table between the FILE's latest-results markers") { |v| o[:readme] = v }
        p.on("-h", "--help", "Show this help") { o[:help] = p.help }
      end
    end
  end
end
