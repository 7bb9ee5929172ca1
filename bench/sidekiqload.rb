# frozen_string_literal: true

# Runs Sidekiq's own load test, bin/sidekiqload from the sidekiq gem, unchanged,
# twice on this machine: on the sidekiq gem, then on Deckhand's drop-in mode
# (the script copied to a folder without Sidekiq's lib/, Deckhand loaded with
# -r bench/lib/sidekiq_dropin.rb). Prints both and the ratio.
#
#   ruby bench/sidekiqload.rb                          # COUNT=200 (100,000 jobs), THREADS=10, LATENCY=0
#   COUNT=1000 ruby bench/sidekiqload.rb               # the script's default size, 500,000 jobs
#   AJ=1 ruby bench/sidekiqload.rb                     # Active Job jobs instead of Sidekiq::Job
#   ROUNDS=3 ruby bench/sidekiqload.rb                 # medians of 3
#   RUBY_YJIT_ENABLE=1 ruby bench/sidekiqload.rb       # both with YJIT, as the script's own example runs
#
# The script talks to Redis on 127.0.0.1:6379, db 13, and flushes that db. So
# that it never touches another Redis, this runs it inside a network
# namespace of its own (unshare -n, as root or with user namespaces) with a
# private redis-server on that port; without one, it refuses unless
# BENCH_REDIS_6379=mine says port 6379 holds a Redis it may flush.
require "bundler/setup"
require "fileutils"
require "open3"
require "tmpdir"

module SidekiqLoad
  ROOT = File.expand_path("..", __dir__)
  LOADER = File.join(ROOT, "bench/lib/sidekiq_dropin.rb")
  DONE = /Done, (\d+) jobs in ([\d.]+) sec, (\d+) jobs\/sec/

  module_function

  def main
    return reexec_isolated unless ENV["SIDEKIQLOAD_ISOLATED"] || ENV["BENCH_REDIS_6379"] == "mine"
    with_redis do
      script = copy_script
      env = {"LATENCY" => "0", "THREADS" => "10", "COUNT" => "200"}.merge(ENV.slice("LATENCY", "THREADS", "COUNT", "AJ"))
      puts RUBY_DESCRIPTION, "redis-server #{redis_version}", "load average #{File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(" ") : "unknown"}",
        "sidekiqload #{env.map { |k, v| "#{k}=#{v}" }.join(" ")}#{" RUBY_YJIT_ENABLE=1" if ENV["RUBY_YJIT_ENABLE"] == "1"}"
      rounds = Integer(ENV.fetch("ROUNDS", "1"))
      # Sidekiq's own Gemfile loads Rails, which its Active Job adapter needs.
      rails = env["AJ"] ? ["-rrails"] : []
      # Rounds alternate, so that a change in the machine's load falls on both.
      pairs = Array.new(rounds) do
        [run("sidekiq #{sidekiq_version}", env, [*rails, "-rsidekiq", script]), run("deckhand drop-in", env, [*rails, "-r#{LOADER}", script])]
      end
      a, b = median(pairs.map(&:first)), median(pairs.map(&:last))
      puts format("median jobs/s: sidekiq %d, deckhand drop-in %d, ratio %.2fx", a, b, b.to_f / a)
    end
  end

  # A private loopback: port 6379 there is nobody else's.
  def reexec_isolated
    unless system("unshare", "-n", "true", err: File::NULL)
      abort "could not run in a network namespace of its own (unshare -n); " \
        "as a user without that, start a Redis you may flush on 127.0.0.1:6379 and set BENCH_REDIS_6379=mine"
    end
    command = ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', RbConfig.ruby, __FILE__]
    exit(system({"SIDEKIQLOAD_ISOLATED" => "1"}, *command) ? 0 : 1)
  end

  def with_redis
    return yield if ENV["BENCH_REDIS_6379"] == "mine"
    Dir.mktmpdir("sidekiqload-redis") do |dir|
      pid = spawn("redis-server", "--port", "6379", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", dir, out: File::NULL)
      sleep 0.05 until system("redis-cli", "-p", "6379", "ping", out: File::NULL, err: File::NULL)
      yield
    ensure
      if pid
        Process.kill("TERM", pid)
        Process.wait(pid)
      end
    end
  end

  # bin/sidekiqload from the bundle's sidekiq gem, alone in a folder: no lib/
  # beside it for it to load by accident.
  def copy_script
    dir = Dir.mktmpdir("sidekiqload")
    at_exit { FileUtils.rm_rf(dir) }
    FileUtils.mkdir_p(File.join(dir, "bin"))
    FileUtils.cp(File.join(Gem.loaded_specs.fetch("sidekiq").full_gem_path, "bin/sidekiqload"), File.join(dir, "bin"))
    File.join(dir, "bin/sidekiqload")
  end

  # Also prints the CPU time the whole run took (boot, push and work: other
  # load on the machine disturbs it less than wall time), in the script's
  # process and in Redis, per job.
  def run(name, env, args)
    before = [Process.times, redis_cpu]
    out, status = Open3.capture2e(env.merge("BUNDLE_GEMFILE" => File.join(ROOT, "Gemfile")), RbConfig.ruby, *args,
      chdir: File.dirname(args.last, 2))
    done = out[DONE]
    abort "#{name}: sidekiqload failed (exit #{status.exitstatus}):\n#{out}" unless done && status.success?
    jobs = Integer(out[DONE, 1])
    times = Process.times
    process = (times.cutime + times.cstime) - (before[0].cutime + before[0].cstime)
    redis = redis_cpu - before[1]
    puts format("%s: %s; CPU a job: process %.1f µs, Redis %.1f µs", name, done, process * 1e6 / jobs, redis * 1e6 / jobs)
    Integer(out[DONE, 3])
  end

  def redis_cpu
    info = `redis-cli -p 6379 INFO cpu`
    info[/used_cpu_user:([\d.]+)/, 1].to_f + info[/used_cpu_sys:([\d.]+)/, 1].to_f
  end

  def median(values) = values.sort[values.size / 2]

  def redis_version = `redis-server --version`[/v=(\S+)/, 1]

  def sidekiq_version = Gem.loaded_specs.fetch("sidekiq").version
end

SidekiqLoad.main
