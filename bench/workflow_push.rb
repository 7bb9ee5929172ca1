# frozen_string_literal: true

# What a workflow costs Redis (docs/workflows.md), on a private redis-server:
# a fan-out and fan-in of N steps (one root, N - 2 parts waiting for it, one
# merge waiting for them all), pushed, then each step's start and success
# told as a server would (Workflow::Outcomes' calls, without running jobs):
#
#   - the push: wall time, from declared steps to the workflow started;
#   - the root's success, which releases N - 2 steps in one script;
#   - each part's start and success (the merge released by the last): wall
#     time and Redis CPU per step.
#
#   ruby bench/workflow_push.rb            # 10,000 steps, 3 rounds
#   ruby bench/workflow_push.rb 2000 5     # steps, rounds
$stdout.sync = true
ENV["BUNDLE_GEMFILE"] ||= File.expand_path("../Gemfile", __dir__)
require "bundler/setup"
require_relative "../lib/deckhand"
require_relative "../lib/deckhand/workflow"
require_relative "lib/deckhand_bench/lab"
require_relative "lib/deckhand_bench/redis_meter"

class BenchStepJob
  include Deckhand::Job

  def perform(*) = nil
end

steps = Integer(ARGV[0] || 10_000)
rounds = Integer(ARGV[1] || 3)
ms = ->(seconds) { format("%.1f ms", seconds * 1000) }

puts "load average at start: #{File.read("/proc/loadavg").split.first(3).join(" ")}"
DeckhandBench::Lab.open(yjit: false) do |lab|
  config = Deckhand::Config.new(redis: {url: lab.url, timeout: 30})
  Deckhand.config = config # the steps' jobs are built as its pushes would be
  meter = DeckhandBench::RedisMeter.new(lab.redis)
  puts "#{lab.server_version}, Ruby #{RUBY_VERSION}, #{steps} steps"
  rounds.times do |round|
    flow = Deckhand::Workflow.new("bench", config: config)
    root = flow.add(BenchStepJob, "root")
    parts = flow.add_many(BenchStepJob, Array.new(steps - 2) { |i| [i] }, after: root)
    flow.add(BenchStepJob, "merge", after: parts)
    meter.start
    started = Deckhand::Monotonic.now
    flow.push
    push = Deckhand::Monotonic.now - started
    push_cost = meter.finish(jobs: steps)

    ops = Deckhand::Workflow.ops(config)
    ops.step(flow.id, "r", root.jid)
    started = Deckhand::Monotonic.now
    ops.step(flow.id, "s", root.jid, "null")
    fan_out = Deckhand::Monotonic.now - started

    meter.start
    started = Deckhand::Monotonic.now
    parts.jids.each do |jid|
      ops.step(flow.id, "r", jid)
      ops.step(flow.id, "s", jid, "null")
    end
    each = (Deckhand::Monotonic.now - started) / parts.jids.size
    step_cost = meter.finish(jobs: parts.jids.size)
    queued = lab.redis.call("LLEN", "queue:default")
    lab.redis.call("DEL", "queue:default")
    puts format("round %d: push %s (Redis %.1f µs a step); root's success releasing %d: %s; " \
      "a part's start and success: %.0f µs wall, Redis %.1f µs, %.1f commands; queued %d",
      round, ms.call(push), push_cost.cpu_us_per_job, steps - 2, ms.call(fan_out), each * 1_000_000,
      step_cost.cpu_us_per_job, step_cost.commands_per_job, queued)
  end
end
