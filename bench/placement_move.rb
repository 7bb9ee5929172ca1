# frozen_string_literal: true

# How long moving a queue to another primary takes while jobs flow
# (Store::Tags::QueueMove, docs/cluster.md "Moving a queue"): a Redis Cluster of 3
# primaries, a backlog of N jobs in one queue, a server in this process
# working it (4 threads, jobs of 2 ms) and a client pushing to it; the queue
# moves, then every job must run exactly once. Prints, per N, the move's
# seconds, the jobs it copied and the jobs that ran twice or not at all.
#
#   bundle exec ruby bench/placement_move.rb [N ...]     # default 10000 100000
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tmpdir"
require "etc"
require "deckhand"
require "deckhand/api"
require "deckhand/server"
require "deckhand/dev_redis/local_cluster"

module PlacementMoveBench
  QUEUE = "default"

  # Counts its runs by argument: a job that ran twice shows.
  class TallyJob
    include Deckhand::Job

    @runs = Hash.new(0)
    @lock = Mutex.new

    class << self
      def ran(n) = @lock.synchronize { @runs[n] += 1 }

      def runs = @lock.synchronize { @runs.dup }

      def reset = @lock.synchronize { @runs = Hash.new(0) }
    end

    def perform(n)
      sleep 0.002
      self.class.ran(n)
    end
  end

  module_function

  def run(backlog, dir)
    TallyJob.reset
    cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(dir, "cluster-#{backlog}"), primaries: 3, replicas: 0)
    config = Deckhand::Config.new(redis: {cluster: cluster.urls}, concurrency: 4, queues: [QUEUE], heartbeat_interval: 1)
    config.logger = Logger.new(File::NULL)
    client = Deckhand::Client.new(config: Deckhand::Config.new(redis: {cluster: cluster.urls}))
    backlog.times.each_slice(1_000) { |slice| client.push_bulk("class" => TallyJob, "queue" => QUEUE, "args" => slice.zip) }
    pushed = backlog
    stop = false
    launcher = Deckhand::Server::Launcher.new(config.freeze!).start
    feeder = Thread.new do
      until stop
        client.push("class" => TallyJob, "queue" => QUEUE, "args" => [pushed])
        pushed += 1
        sleep 0.002
      end
    end
    sleep 2
    result = Deckhand::API.new(config).queue_moves.move(QUEUE)
    sleep 2
    stop = true
    feeder.join
    deadline = now + 600
    sleep 0.2 until TallyJob.runs.size >= pushed || now > deadline
    runs = TallyJob.runs
    twice = runs.count { |_, count| count > 1 }
    lost = pushed - runs.size
    puts format("backlog %<n>d: move %<s>.1f s, paused until the switch %<paused>.1f s, copying %<jobs>d jobs %<copy>.2f s " \
      "(%<rate>d jobs/s, the queue worked meanwhile); %<pushed>d pushed in all, lost %<lost>d, ran twice %<twice>d",
      n: backlog, s: result.seconds, paused: result.paused, jobs: result.jobs, copy: result.copy, rate: result.jobs / result.copy,
      pushed: pushed, lost: lost, twice: twice)
  ensure
    stop = true
    feeder&.join
    launcher&.stop
    cluster&.stop
  end

  def now = ::Process.clock_gettime(::Process::CLOCK_MONOTONIC)
end

sizes = ARGV.empty? ? [10_000, 100_000] : ARGV.map { |n| Integer(n) }
# "Valkey server v=8.1.1 ..." names the server DECKHAND_REDIS_SERVER picked.
banner = IO.popen([Deckhand::DevRedis.binary, "--version"], &:read)
redis = "#{banner[/\A\w+/].downcase} #{banner[/v=(\S+)/, 1]}"
load = File.read("/proc/loadavg").split.first
puts "placement move, #{Time.now.utc.strftime("%Y-%m-%d %H:%M UTC")}: deckhand #{Deckhand::VERSION}, ruby #{RUBY_VERSION}, " \
  "#{redis}, #{Etc.nprocessors} cores, load #{load}"
Dir.mktmpdir("deckhand-placement-move") { |dir| sizes.each { |n| PlacementMoveBench.run(n, dir) } }
