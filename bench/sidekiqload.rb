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
#   ROUNDS=3 ruby bench/sidekiqload.rb --ruby 3.3      # on Ruby 3.3 and today's stack (Sidekiq 8.1)
#
# The script talks to Redis on localhost:6379, db 13, and flushes that db. So
# that it never touches another Redis, this runs it inside a network
# namespace of its own (unshare -n, as root or with user namespaces) with a
# private redis-server on that port; without one, it refuses unless
# BENCH_REDIS_6379=mine says port 6379 holds a Redis it may flush.
#
# --ruby VERSION runs all of it inside the Ruby VERSION root that bin/test
# --ruby VERSION uses (bin/ruby-root VERSION COMMAND...), with that root's
# bundle and its sidekiq gem. DECKHAND_RUBY_ROOT names another command taking
# the same arguments.
require "fileutils"
require "open3"
require "socket"
require "tmpdir"

module SidekiqLoad
  ROOT = File.expand_path("..", __dir__)
  LOADER = File.join(ROOT, "bench/lib/sidekiq_dropin.rb")
  DONE = /Done, (\d+) jobs in ([\d.]+) sec, (\d+) jobs\/sec/
  # What a run inside another Ruby's root is told: the script's settings and the bench's.
  SETTINGS = %w[LATENCY THREADS COUNT AJ ROUNDS RUBY_YJIT_ENABLE]
  # struct ifreq's flags request and update (linux/sockios.h), which ip(8) sends.
  SIOCGIFFLAGS = 0x8913
  SIOCSIFFLAGS = 0x8914

  module_function

  def main(argv)
    if argv.first == "--ruby" && argv.size == 2
      return reexec_in_root(argv[1])
    elsif argv.any?
      abort "usage: ruby bench/sidekiqload.rb [--ruby VERSION] (settings go in the environment: COUNT, THREADS, AJ, ROUNDS)"
    end
    require "bundler/setup"
    return reexec_isolated unless ENV["SIDEKIQLOAD_ISOLATED"] || ENV["BENCH_REDIS_6379"] == "mine"
    if ENV["SIDEKIQLOAD_ISOLATED"]
      loopback_up
      check_script_needs
    end
    with_redis { measure }
  end

  def measure
    script = copy_script
    env = {"LATENCY" => "0", "THREADS" => "10", "COUNT" => "200"}.merge(ENV.slice("LATENCY", "THREADS", "COUNT", "AJ"))
    puts RUBY_DESCRIPTION, "YJIT: #{yjit}", "redis-server #{redis_version}", "load average #{load_average}",
      "sidekiqload #{env.map { |k, v| "#{k}=#{v}" }.join(" ")}#{" RUBY_YJIT_ENABLE=1" if ENV["RUBY_YJIT_ENABLE"] == "1"}"
    rounds = Integer(ENV.fetch("ROUNDS", "1"))
    # Sidekiq's own Gemfile loads Rails, which its Active Job adapter needs.
    rails = env["AJ"] ? ["-rrails"] : []
    # Rounds alternate, so that a change in the machine's load falls on both.
    pairs = Array.new(rounds) do
      [run("sidekiq #{sidekiq_version}", env, [*rails, "-rsidekiq", script]), run("deckhand drop-in", env, [*rails, "-r#{LOADER}", script])]
    end
    gem, dropin = pairs.transpose
    [["sidekiq #{sidekiq_version}", gem], ["deckhand drop-in", dropin]].each do |name, runs|
      puts format("%s: jobs/s median %d, rounds %s; CPU a job median: process %.1f µs, Redis %.1f µs", name,
        median(runs.map { _1[:rate] }), runs.map { _1[:rate] }.join(" / "),
        median(runs.map { _1[:process] }), median(runs.map { _1[:redis] }))
    end
    a, b = median(gem.map { _1[:rate] }), median(dropin.map { _1[:rate] })
    puts format("median jobs/s: sidekiq %d, deckhand drop-in %d, ratio %.2fx; load average at the end %s", a, b, b.to_f / a, load_average)
  end

  # bin/ruby-root VERSION env SETTINGS... ruby bench/sidekiqload.rb: the root
  # has its own environment, so the settings travel on the command line.
  def reexec_in_root(version)
    command = File.expand_path(ENV.fetch("DECKHAND_RUBY_ROOT", File.join(ROOT, "bin/ruby-root")))
    unless File.executable?(command)
      abort "bench/sidekiqload.rb --ruby #{version} runs in the Ruby #{version} root of bin/test --ruby #{version} " \
        "(bin/ruby-root), which this checkout does not have (#{command}); set DECKHAND_RUBY_ROOT to a command " \
        "that runs `VERSION COMMAND...` on that Ruby with today's bundle"
    end
    settings = ENV.slice(*SETTINGS).map { |name, value| "#{name}=#{value}" }
    exec(command, version, "env", *settings, "ruby", "bench/sidekiqload.rb", chdir: ROOT)
  end

  # A private loopback: port 6379 there is nobody else's.
  def reexec_isolated
    unless system("unshare", "-n", "true", err: File::NULL)
      abort "could not run in a network namespace of its own (unshare -n); " \
        "as a user without that, start a Redis you may flush on 127.0.0.1:6379 and set BENCH_REDIS_6379=mine"
    end
    exit(system({"SIDEKIQLOAD_ISOLATED" => "1"}, "unshare", "-n", "--", RbConfig.ruby, __FILE__) ? 0 : 1)
  end

  # A new network namespace's loopback starts down. It is brought up the way
  # ip(8) does it, since a Debian root built by debootstrap has no iproute2.
  def loopback_up
    socket = Socket.new(:INET, :DGRAM)
    request = ["lo"].pack("a16").ljust(40, "\0") # struct ifreq: the name, then the flags
    socket.ioctl(SIOCGIFFLAGS, request)
    flags = request.byteslice(16, 2).unpack1("s")
    socket.ioctl(SIOCSIFFLAGS, ["lo", flags | Socket::IFF_UP].pack("a16s").ljust(40, "\0"))
  ensure
    socket&.close
  end

  # What the script relies on from the system, checked before it runs.
  def check_script_needs
    Addrinfo.getaddrinfo("localhost", 6379, :INET, :STREAM)
  rescue SocketError
    abort "bin/sidekiqload connects to localhost:6379, and localhost does not resolve here: " \
      "add `127.0.0.1 localhost` to /etc/hosts (a root built by debootstrap has none)"
  else
    unless ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |dir| File.executable?(File.join(dir, "ps")) }
      abort "bin/sidekiqload reads its RSS with ps, which is not on PATH here: install procps"
    end
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
  # process and in Redis, per job, and the load average as it starts.
  def run(name, env, args)
    load = load_average
    before = [Process.times, redis_cpu]
    out, status = Open3.capture2e(env.merge("BUNDLE_GEMFILE" => Bundler.default_gemfile.to_s), RbConfig.ruby, *args,
      chdir: File.dirname(args.last, 2))
    done = out[DONE]
    abort "#{name}: sidekiqload failed (exit #{status.exitstatus}):\n#{out}" unless done && status.success?
    jobs = Integer(out[DONE, 1])
    times = Process.times
    process = ((times.cutime + times.cstime) - (before[0].cutime + before[0].cstime)) * 1e6 / jobs
    redis = (redis_cpu - before[1]) * 1e6 / jobs
    puts format("%s: %s; CPU a job: process %.1f µs, Redis %.1f µs; load average at start %s", name, done, process, redis, load)
    {rate: Integer(out[DONE, 3]), process: process, redis: redis}
  end

  def redis_cpu
    info = `redis-cli -p 6379 INFO cpu`
    info[/used_cpu_user:([\d.]+)/, 1].to_f + info[/used_cpu_sys:([\d.]+)/, 1].to_f
  end

  def median(values) = values.sort[values.size / 2]

  def load_average = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(" ") : "unknown"

  def yjit
    return "not built in" unless defined?(RubyVM::YJIT)
    RubyVM::YJIT.enabled? ? "on" : "off"
  end

  def redis_version = `redis-server --version`[/v=(\S+)/, 1]

  def sidekiq_version = Gem.loaded_specs.fetch("sidekiq").version
end

SidekiqLoad.main(ARGV)
