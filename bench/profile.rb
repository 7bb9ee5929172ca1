# frozen_string_literal: true

# Profiles one server process through the no-op throughput run, with stackprof
# inside the probe's measuring window, and prints the hottest frames:
#
#   ruby bench/profile.rb                          # Deckhand, CPU, 100,000 jobs, 10 threads
#   ruby bench/profile.rb sidekiq object 20000     # system, mode (cpu, wall, object), jobs
#
# Needs the stackprof gem: add `gem "stackprof", "~> 0.2"` to the Gemfile's
# development group, or put an installed copy on RUBYLIB.
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require "stackprof"
require_relative "lib/deckhand_bench/runner"

name, mode, jobs = ARGV
name ||= "deckhand"
mode ||= "cpu"
jobs = Integer(jobs || 100_000)
system = (name == "sidekiq") ? DeckhandBench::Systems::SidekiqSystem.load : DeckhandBench::Systems::DeckhandSystem.new
abort "usage: bench/profile.rb [deckhand|sidekiq] [cpu|wall|object] [JOBS]" unless system && %w[cpu wall object].include?(mode)
dump = File.expand_path("../tmp/profile-#{name}-#{mode}.dump", __dir__)
FileUtils.mkdir_p(File.dirname(dump))

DeckhandBench::Lab.open(yjit: DeckhandBench::Runner.yjit_available?) do |lab|
  lab.fresh!
  system.push_bulk(system.client(lab.url), "BenchNoopJob", "bench", Array.new(jobs) { |i| DeckhandBench::Probe.args(i) })
  child = lab.server(system, system.server(threads: 10, queues: ["bench"]), expect: jobs,
    extra_env: {"BENCH_PROFILE" => dump, "BENCH_PROFILE_MODE" => mode})
  begin
    report = JSON.parse(child.wait_report(lab.redis, DeckhandBench::Probe::FINISHED, timeout: 60 + jobs * 0.005))
    puts "#{system.label}: #{report["jobs"]} jobs in #{report["seconds"].round(2)} s (profiled), " \
      "#{report["allocated"].fdiv(report["jobs"]).round(1)} objects/job"
  ensure
    child.stop
  end
end
StackProf::Report.new(Marshal.load(File.binread(dump))).print_text(false, 30)
puts "Profile saved to #{dump} (stackprof --method 'NAME' #{dump} for one method)"
