# frozen_string_literal: true

# bin/torture: runs the reliability torture scenarios against real server
# processes and a real redis-server, printing one line of figures each.
# Exits non-zero when any scenario lost a job or broke another promise.
#
#   bin/torture              # the full sizes (several minutes)
#   bin/torture --quick      # the short version CI runs (under two minutes)
#   bin/torture --quick 3 6  # only scenarios 3 and 6
#   bin/torture --record torture/RESULTS.md   # also append the lines there
#   bin/torture --jruby sigkill-churn         # the servers on JRuby (bin/jruby installs it)
#   bin/torture --keep tmp/torture 17         # keep the servers' logs and config there
#   bin/torture --quick --server valkey       # every Redis a valkey-server

require "optparse"
require "tmpdir"
require "fileutils"
require "etc"
require "deckhand"
require "deckhand/dev_redis"
require_relative "support/ledger"
require_relative "support/scenario"
Dir[File.join(__dir__, "scenarios", "*.rb")].sort.each { |file| require file }

module Torture
  SCENARIOS = Scenario.subclasses.flat_map { |s| [s, *s.subclasses] }.sort_by { |s| s::NUMBER }.freeze

  module Runner
    module_function

    def run(argv)
      options = {quick: false, record: nil, jruby: false, keep: nil}
      OptionParser.new do |p|
        p.banner = "Usage: bin/torture [--quick] [--record FILE] [SCENARIO NUMBER OR NAME ...]"
        p.on("--quick", "Short sizes and timings (CI)") { options[:quick] = true }
        p.on("--record FILE", "Append the header and figure lines to FILE") { |f| options[:record] = f }
        p.on("--jruby", "Run the servers on JRuby 9.4 (bin/jruby; this runner stays on MRI)") { options[:jruby] = true }
        p.on("--keep DIR", "Run in DIR (made if missing) and keep it: the servers' logs") { |d| options[:keep] = d }
        p.on("--server NAME", "redis (default), valkey, or a server binary's path (sets DECKHAND_REDIS_SERVER)") do |name|
          ENV[Deckhand::DevRedis::CHOICE] = Deckhand::DevRedis.binary_for(name)
        end
      end.parse!(argv)
      known = SCENARIOS.flat_map { |s| [s::NUMBER.to_s, s::NAME] }
      unknown = argv - known
      unless unknown.empty?
        warn "bin/torture: no scenario #{unknown.map(&:inspect).join(", ")}; scenarios: " +
          SCENARIOS.map { |s| "#{s::NUMBER} #{s::NAME}" }.join(", ")
        return 2
      end
      system(File.expand_path("../bin/jruby", __dir__), "--setup-only", exception: true) if options[:jruby]
      chosen = argv.empty? ? SCENARIOS : SCENARIOS.select { |s| argv.include?(s::NUMBER.to_s) || argv.include?(s::NAME) }
      return run_all(chosen, options, FileUtils.mkdir_p(options[:keep]).first) if options[:keep]
      Dir.mktmpdir("deckhand-torture") { |dir| run_all(chosen, options, dir) }
    end

    def run_all(scenarios, options, dir)
      ledger_server = start_ledger(dir) or return 2
      ledger = Ledger.new(ledger_server.url)
      lines = [header(options, ledger_server)]
      puts lines.first
      started = now
      results = scenarios.map do |scenario|
        result = scenario.new(quick: options[:quick], ledger: ledger, dir: File.join(dir, scenario::NAME), jruby: options[:jruby]).call
        puts result.line
        lines << result.line
        result
      end
      lines << "total wall=#{(now - started).round}s #{results.all?(&:ok?) ? "ok" : "FAILED"}"
      puts lines.last
      File.open(options[:record], "a") { |f| f.puts(lines.map { |l| "    #{l}" }, "") } if options[:record]
      results.all?(&:ok?) ? 0 : 1
    ensure
      ledger&.close
      ledger_server&.stop
    end

    # The first server of the run: a binary that cannot start (not
    # installed, a bad --server) is told in one line, no backtrace.
    def start_ledger(dir)
      Deckhand::DevRedis.start(dir: File.join(dir, "ledger"), persistent: false)
    rescue Deckhand::ConnectionError => e
      warn "bin/torture: #{e.message}"
      nil
    end

    # The ledger's server is the binary every scenario's servers run.
    def header(options, ledger_server)
      redis = ledger_server.server_version
      load = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first : "?"
      ruby = options[:jruby] ? "servers on #{jruby_version}" : "ruby #{RUBY_VERSION}"
      "deckhand torture #{options[:quick] ? "--quick" : "(full)"} #{Time.now.utc.strftime("%Y-%m-%d %H:%M UTC")}: " \
        "deckhand #{Deckhand::VERSION}, #{ruby}, #{redis}, #{Etc.nprocessors} cores, load #{load}"
    end

    def jruby_version
      IO.popen([File.expand_path("../bin/jruby", __dir__), "-e", "print JRUBY_VERSION"], &:read).then { |v| "JRuby #{v}" }
    end

    def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
  end
end

exit Torture::Runner.run(ARGV) if $PROGRAM_NAME == __FILE__
