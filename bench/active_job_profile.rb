# frozen_string_literal: true

# Profiles one Deckhand server through bench/active_job.rb's drain (N no-op
# Active Job jobs pushed with perform_all_later, 10 threads), with stackprof
# inside the probe's measuring window, and prints the hottest frames and the
# objects allocated per job:
#
#   bundle exec ruby bench/active_job_profile.rb                 # CPU, 30,000 jobs
#   bundle exec ruby bench/active_job_profile.rb object 20000    # mode (cpu, wall, object), jobs
$stdout.sync = true
require "stackprof"
require_relative "active_job"

mode, jobs = ARGV
mode ||= "cpu"
jobs = Integer(jobs || 30_000)
abort "usage: bench/active_job_profile.rb [cpu|wall|object] [JOBS]" unless %w[cpu wall object].include?(mode)
dump = File.expand_path("../tmp/profile-active-job-#{mode}.dump", __dir__)
FileUtils.mkdir_p(File.dirname(dump))

DeckhandBench::Lab.open(yjit: true) do |lab|
  lab.fresh!
  env = {"BENCH_SYSTEM" => "deckhand", "BENCH_APP" => ActiveJobBench::APP}
  ActiveJobBench.script(lab, ActiveJobBench::PUSH, jobs, env)
  child = lab.server(Struct.new(:name).new("deckhand"), [ActiveJobBench::EXE.fetch("deckhand"), "-r", ActiveJobBench::APP,
    "-c", 10, "-q", "bench"], expect: jobs, extra_env: env.merge("BENCH_PROFILE" => dump, "BENCH_PROFILE_MODE" => mode))
  begin
    report = JSON.parse(child.wait_report(lab.redis, DeckhandBench::Probe::FINISHED, timeout: 120 + jobs * 0.01))
    puts "Deckhand: #{report["jobs"]} jobs in #{report["seconds"].round(2)} s (profiled), " \
      "#{report["allocated"].fdiv(report["jobs"]).round(1)} objects/job, #{report["gc_runs"]} GC runs (#{report["major_gc_runs"]} major), " \
      "#{report["gc_ms"].round} ms of GC, #{report["live_objects"]} live objects at the end"
  ensure
    child.stop
  end
end
StackProf::Report.new(Marshal.load(File.binread(dump))).print_text(false, 40)
puts "Profile saved to #{dump} (stackprof --method 'NAME' #{dump} for one method)"
