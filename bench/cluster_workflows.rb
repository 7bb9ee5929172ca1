# frozen_string_literal: true

# What a workflow costs in cluster mode against plain Redis, on private
# servers on this machine (a Redis Cluster of 3 primaries, no replicas): a
# fan-out and fan-in of N steps (one root, N - 2 parts, one merge), pushed,
# then each step's start and success told as a server would (Workflow.ops'
# calls, without running jobs). In cluster mode every release goes through
# the workflows' outbox to the queue (docs/workflows.md, "Cluster mode").
#
#   bundle exec ruby bench/cluster_workflows.rb [--steps 2000]
#
# Per mode, two rounds (the first loads the scripts): the push; the root's success, which releases N - 2 steps; a
# part's start and success (wall, and Redis command time over every node).
require "optparse"
require "tmpdir"
require "etc"
require "logger"
require "deckhand"
require "deckhand/workflow"
require "deckhand/dev_redis"
require "deckhand/dev_redis/local_cluster"

class BenchStepJob
  include Deckhand::Job

  deckhand_options queue: "mail"

  def perform(*) = nil
end

module ClusterWorkflowBench
  module_function

  def run(steps)
    Dir.mktmpdir("deckhand-cluster-workflows") do |dir|
      plain = Deckhand::DevRedis.start(dir: File.join(dir, "plain"), persistent: false)
      cluster = Deckhand::DevRedis::LocalCluster.start(dir: File.join(dir, "cluster"), primaries: 3, replicas: 0)
      info(plain.url, steps)
      {"plain" => [{url: plain.url}, [plain.url]], "cluster" => [{cluster: cluster.urls}, cluster.urls]}.each do |mode, (redis, nodes)|
        config = Deckhand::Config.new(redis: redis)
        config.logger = Logger.new(File::NULL)
        Deckhand::Workflow.install(config)
        Deckhand.config = config # the steps' jobs are built as its pushes would be
        2.times { |round| measure(mode, round, config, nodes, steps) } # round 0 loads the scripts
        config.store.shutdown
      end
    ensure
      cluster&.stop
      plain&.stop
    end
  end

  def info(url, steps)
    version = Deckhand::DevRedis.server_version(RedisClient.new(url: url).call("INFO", "server"))
    puts "Workflows, plain Redis vs Redis Cluster (3 primaries): #{steps} steps, one thread"
    puts "Ruby: #{RUBY_DESCRIPTION}"
    puts "Server: #{version}; cores: #{Etc.nprocessors}; load: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
  end

  def measure(mode, round, config, nodes, steps)
    flow = Deckhand::Workflow.new("bench", config: config)
    root = flow.add(BenchStepJob, "root")
    parts = flow.add_many(BenchStepJob, Array.new(steps - 2) { |i| [i] }, after: root)
    flow.add(BenchStepJob, "merge", after: parts)
    push = timed { flow.push }
    ops = Deckhand::Workflow.ops(config)
    ops.step(flow.id, "r", root.jid)
    fan_out = timed { Deckhand::Workflow.ops(config).step(flow.id, "s", root.jid, "null") }
    clients = nodes.map { |url| RedisClient.new(url: url) }
    clients.each { |c| c.call("CONFIG", "RESETSTAT") }
    each = timed do
      parts.jids.each do |jid|
        Deckhand::Workflow.ops(config).step(flow.id, "r", jid)
        Deckhand::Workflow.ops(config).step(flow.id, "s", jid, "null")
      end
    end / parts.jids.size
    usec = clients.sum { |c| c.call("INFO", "commandstats").scan(/,usec=(\d+),/).sum { |(n)| n.to_i } }.to_f / parts.jids.size
    queued = config.store.call("LLEN", config.store.layout.queue("mail"))
    config.store.call("DEL", config.store.layout.queue("mail")) # the steps' jobs this round pushed
    printf("%-8s %d: push %7.1f ms   root's success releasing %d: %7.1f ms   a part's start and success: %6.0f us wall, " \
      "Redis %5.1f us   queued %d\n", mode, round, push * 1000, steps - 2, fan_out * 1000, each * 1e6, usec, queued)
  ensure
    clients&.each(&:close)
  end

  def timed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end
end

steps = 2_000
OptionParser.new { |o| o.on("--steps N", Integer) { |n| steps = n } }.parse!
ClusterWorkflowBench.run(steps)
