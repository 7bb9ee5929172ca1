# frozen_string_literal: true

require "optparse"
require_relative "../bench/runner"
require_relative "command"

module Deckhand
  class CLI
    # `deckhand bench [scenario...] [--rounds N] [--quick]`: Deckhand against
    # Sidekiq (when installed) on this machine, one fresh private redis-server.
    #
    #   deckhand bench                      # every scenario, 3 rounds, medians
    #   deckhand bench throughput mixed     # or by number: deckhand bench 1 7
    #   deckhand bench --quick              # small counts, one round, about a minute; exit 1 if any fails
    class BenchCommand
      include Command

      BANNER = <<~TEXT
        Usage: deckhand bench [scenario...] [options]

        Runs Deckhand and Sidekiq side by side on the same no-op jobs against one fresh
        private redis-server, prints a table of medians and saves it as Markdown.
        Scenarios (default: all): #{Bench::Runner::SCENARIOS.keys.join(", ")}, or the numbers 1-7.
        Exits 1 if any scenario fails to complete.

      TEXT

      def run
        options, names = parse
        return @out.puts(options[:help]) || 0 if options[:help]
        plan = options[:quick] ? Bench::Plan.quick(rounds: options[:rounds] || 1) : Bench::Plan.full(rounds: options[:rounds] || 3)
        runner = Bench::Runner.new(scenarios: names, plan: plan, out: @out,
          yjit: options.fetch(:yjit) { Bench::Runner.yjit_available? },
          results_dir: options[:results] || "bench/results", readme: options[:readme])
        runner.run
      rescue OptionParser::ParseError, ArgumentError => e
        @err.puts("deckhand bench: #{e.message} (see deckhand bench --help)")
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
          p.on("--results DIR", "Where to save the Markdown report (default: bench/results)") { |v| o[:results] = v }
          p.on("--readme FILE", "Also put the table between the FILE's latest-results markers") { |v| o[:readme] = v }
          p.on("-h", "--help", "Show this help") { o[:help] = p.help }
        end
      end
    end
  end
end
