# frozen_string_literal: true

# What batch bookkeeping costs in cluster mode against plain Redis, at the
# store level (no server, one thread): a private redis-server and a private
# Redis Cluster (3 primaries, no replicas) on this machine. Two runs per mode:
#
# - outcomes:  one batch of N jobs over three queues, each job's success
#              recorded (Batch::Tracker, what the server's middleware calls);
#              the last fires :complete and :success
# - callbacks: N batches of one job each, its success recorded: every outcome
#              fires two callbacks (in cluster mode through the outbox: the
#              push to the callback queue's slot, then the clearing)
#
# Prints µs of wall time and of Redis command time per outcome (INFO
# commandstats, every node's summed: what the commands cost the servers, not
# their idle cluster chatter).
#
#   bundle exec ruby bench/cluster_batches.rb [--jobs 5000]

require "optparse"
require "tmpdir"
require "deckhand"
require "deckhand/batch"
require "deckhand/dev_redis"
require "deckhand/dev_redis/local_cluster"

module ClusterBatchBench
  QUEUES = %w[default mail reports].freeze

  module_function

  def run(jobs)
    Dir.mktmpdir("deckhand-cluster-batches") do |dir|
      plain = Deckhand::DevRedis.start(dir: File.join(dir, "plain"), persistent: false)
      cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(dir, "cluster"), primaries: 3, replicas: 0)
      info(plain.url, jobs)
      {"plain" => [{url: plain.url}, [plain.url]], "cluster" => [{cluster: cluster.urls}, cluster.urls]}.each do |mode, (redis, nodes)|
        config = Deckhand::Config.new(redis: redis)
        config.logger = Logger.new(File::NULL)
        Deckhand::Batch.install(config)
        measure(mode, "outcomes", nodes, jobs) { outcomes(config, jobs) }
        measure(mode, "callbacks", nodes, jobs) { callbacks(config, jobs) }
        config.store.shutdown
      end
    ensure
      cluster&.stop
      plain&.stop
    end
  end

  def info(url, jobs)
    version = Deckhand::DevRedis.server_version(RedisClient.new(url: url).call("INFO", "server"))
    puts "Batch bookkeeping, plain Redis vs Redis Cluster (3 primaries): #{jobs} outcomes per run, one thread"
    puts "Ruby: #{RUBY_DESCRIPTION}"
    puts "Server: #{version}; cores: #{Etc.nprocessors}; load: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  end

  def batch(config, *events)
    batch = Deckhand::Batch.new(config: config)
    events.each { |event| batch.on(event, "BenchCallbacks") }
    batch
  end

  def push(config, i) = Deckhand::Client.new(config: config).push("class" => "BenchJob", "args" => [i], "queue" => QUEUES[i % 3])

  # The work to time; returns it as a lambda after the setup.
  def outcomes(config, jobs)
    one = batch(config, :complete, :success)
    jids = one.jobs { jobs.times { |i| push(config, i) } }
    tracker = Deckhand::Batch::Tracker.new(config)
    -> { jids.each { |jid| tracker.success(one.bid, jid) } }
  end

  def callbacks(config, jobs)
    made = Array.new(jobs) do |i|
      one = batch(config, :complete, :success)
      [one.bid, one.jobs { push(config, i) }.first]
    end
    tracker = Deckhand::Batch::Tracker.new(config)
    -> { made.each { |bid, jid| tracker.success(bid, jid) } }
  end

  def measure(mode, name, nodes, jobs)
    work = yield
    clients = nodes.map { |url| RedisClient.new(url: url) }
    clients.each { |c| c.call("CONFIG", "RESETSTAT") }
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    work.call
    wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    usec = clients.sum { |c| command_usec(c) }
    printf("%-8s %-10s wall %7.1f us/outcome   Redis commands %6.1f us/outcome\n", mode, name, wall * 1e6 / jobs, usec.to_f / jobs)
  ensure
    clients&.each(&:close)
  end

  def command_usec(client) = client.call("INFO", "commandstats").scan(/,usec=(\d+),/).sum { |(usec)| usec.to_i }
end

jobs = 5_000
OptionParser.new { |o| o.on("--jobs N", Integer) { |n| jobs = n } }.parse!
ClusterBatchBench.run(jobs)
