# frozen_string_literal: true

# Cluster mode's job path against plain mode's, on this machine: no-op jobs
# bulk-pushed to three queues (one per primary in cluster mode), worked by an
# embedded server of 10 threads in this process; prints jobs per second and
# the script calls (EVALSHA/EVAL) Redis ran per job, summed over every node.
#
#   ruby bench/cluster_core.rb [jobs]     # default 20,000
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tmpdir"
require "etc"
require "logger"
require "deckhand"
require "deckhand/server"
require "deckhand/dev_redis"
require "deckhand/dev_redis/local_cluster"

module ClusterCoreBench
  QUEUES = %w[default mail low].freeze # three slots on three primaries
  DONE = Queue.new
  @count = 0
  @lock = Mutex.new

  class << self
    attr_accessor :target

    def ran
      @lock.synchronize do
        @count += 1
        DONE << true if @count == target
      end
    end

    def reset = @lock.synchronize { @count = 0 }
  end

  class NoopJob
    include Deckhand::Job

    def perform(*) = ClusterCoreBench.ran
  end

  module_function

  def script_calls(urls)
    urls.sum do |url|
      conn = RedisClient.new(url: url)
      stats = conn.call("INFO", "commandstats")
      %w[evalsha eval].sum { |name| stats[/cmdstat_#{name}:calls=(\d+)/, 1].to_i }
    ensure
      conn&.close
    end
  end

  def run(label, redis, urls, jobs)
    config = Deckhand::Config.new(redis: redis, concurrency: 10, queues: QUEUES)
    config.logger = Logger.new(File::NULL)
    Deckhand.config = config
    per_queue = jobs / QUEUES.size
    QUEUES.each do |queue|
      per_queue.times.each_slice(1_000) do |slice|
        Deckhand::Client.push_bulk("class" => NoopJob.name, "queue" => queue, "args" => slice.map { |n| ["bench", n, {"id" => n}] })
      end
    end
    reset
    self.target = per_queue * QUEUES.size
    calls = script_calls(urls)
    launcher = Deckhand::Server::Launcher.new(config.freeze!, on_signal: ->(_) {})
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    launcher.start
    DONE.pop
    elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    launcher.stop
    calls = script_calls(urls) - calls
    puts format("%-8s %7d jobs  %8.0f jobs/s  %.3f script calls per job", label, target, target / elapsed, calls.to_f / target)
  ensure
    Deckhand::Lifecycle.reset!
  end
end

jobs = Integer(ARGV.first || 20_000)
dir = Dir.mktmpdir("deckhand-cluster-bench")
plain = Deckhand::DevRedis.start(dir: File.join(dir, "plain").tap { |d| FileUtils.mkdir_p(d) }, persistent: false)
cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(dir, "cluster").tap { |d| FileUtils.mkdir_p(d) }, primaries: 3, replicas: 0)
begin
  puts "Ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores, load #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  ClusterCoreBench.run("plain", {url: plain.url}, [plain.url], jobs)
  ClusterCoreBench.run("cluster", {cluster: cluster.urls}, cluster.urls, jobs)
ensure
  cluster.stop
  plain.stop
  FileUtils.rm_rf(dir)
end
