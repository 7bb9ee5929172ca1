# frozen_string_literal: true

require "test_helper"
require "open3"
require_relative "compat_helper"
require_relative "../dropin/dropin_helper"
require_relative "../e2e/e2e_helper"
require "deckhand/api"

# A mixed fleet on one Redis, with default settings: a real Sidekiq process
# (the sidekiq gem of this bundle: 8.1 on Ruby 3.3, 7.3 on 3.1) and a real
# `deckhand` process in drop-in mode, each running the same jobs
# (fleet_app/jobs.rb) from its own queue. Plain, scheduled, retried, dead
# and Active Job jobs pushed by either side run on the other; Sidekiq's API
# reports the Deckhand process (concurrency, capsules, busy) and its metrics
# query shows the classes Deckhand ran; Deckhand's API reports Sidekiq's.
class MixedFleetTest < Minitest::Test
  include Deckhand::CompatTest
  include Deckhand::DropInHelpers
  include Deckhand::E2EHelpers

  JOBS = File.expand_path("fleet_app/jobs.rb", __dir__)
  SIDEKIQ_SIDE = "sk" # the queue the Sidekiq process works
  DECKHAND_SIDE = "dh" # the queue the Deckhand process works

  # Sidekiq's client pushes to Deckhand's queue, with its own Active Job adapter.
  SIDEKIQ_PUSH = <<~RUBY
    require #{JOBS.inspect}
    Sidekiq.configure_client { |config| config.redis = {url: ENV.fetch("REDIS_URL")} }
    pushed = {
      plain: Fleet::PlainJob.set(queue: "dh").perform_async("plain from sidekiq"),
      scheduled: Fleet::PlainJob.set(queue: "dh").perform_in(1, "scheduled by sidekiq"),
      flaky: Fleet::FlakyJob.set(queue: "dh").perform_async("flaky from sidekiq"),
      doomed: Fleet::DoomedJob.set(queue: "dh").perform_async("doomed by sidekiq"),
      active_job: Fleet::RollJob.set(queue: "dh").perform_later("active job from sidekiq").provider_job_id
    }
    puts JSON.generate(pushed)
  RUBY

  # Deckhand's client, in drop-in mode, pushes to Sidekiq's queue.
  DECKHAND_PUSH = <<~RUBY
    require #{JOBS.inspect}
    pushed = {
      plain: Fleet::PlainJob.set(queue: "sk").perform_async("plain from deckhand"),
      scheduled: Fleet::PlainJob.set(queue: "sk").perform_in(1, "scheduled by deckhand"),
      flaky: Fleet::FlakyJob.set(queue: "sk").perform_async("flaky from deckhand"),
      doomed: Fleet::DoomedJob.set(queue: "sk").perform_async("doomed by deckhand"),
      active_job: Fleet::RollJob.set(queue: "sk").perform_later("active job from deckhand").provider_job_id
    }
    puts JSON.generate(pushed)
  RUBY

  def test_jobs_cross_both_ways_and_each_sides_api_reads_the_other
    redis.call("SET", "fleet:doom:doomed by sidekiq", "1")
    redis.call("SET", "fleet:doom:doomed by deckhand", "1")
    Deckhand::SidekiqHarness.server(queues: [SIDEKIQ_SIDE], setup: method(:sidekiq_side)) do |sidekiq_pid|
      sidekiq = wait_for(message: "the Sidekiq process record") { Sidekiq::ProcessSet.new.find { |process| process["pid"] == sidekiq_pid } }
      cli = deckhand("-r", JOBS, "-q", DECKHAND_SIDE, "-c", "3", app: nil, env: dropin_env)
      deckhand_identity = cli.identity

      from_sidekiq = push(SIDEKIQ_PUSH, env: {"REDIS_URL" => Deckhand::RedisHarness.url})
      from_deckhand = push(DECKHAND_PUSH, env: dropin_env)
      ran = begin
        wait_for(timeout: 60, message: "every job to run on the other side") { crossed?(from_sidekiq, from_deckhand) }
      rescue Minitest::Assertion => e
        raise e.class, "#{e.message}\nlog: #{log.inspect}\nthe Deckhand server's output:\n#{cli.output}"
      end

      assert_equal ["deckhand"], ran.values_at("plain from sidekiq", "scheduled by sidekiq", "flaky from sidekiq",
        "active job from sidekiq").uniq, log.inspect
      assert_equal ["sidekiq"], ran.values_at("plain from deckhand", "scheduled by deckhand", "flaky from deckhand",
        "active job from deckhand").uniq, log.inspect
      assert_equal [2, 2], [tries("flaky from sidekiq"), tries("flaky from deckhand")], "each failed once, then ran from the retry set"
      assert_includes log, ["active_job", "active job from sidekiq", from_sidekiq["active_job"], "deckhand"], "provider_job_id is the jid"

      # With a Sidekiq process registered, Deckhand writes the wrapper class that process runs.
      assert_includes log, ["seen", expected_wrapper, "Fleet::RollJob", "sidekiq"]

      # Dead jobs: each side's API retries the one the other side buried.
      dead = wait_for(message: "both doomed jobs in the dead set") { Sidekiq::DeadSet.new.size == 2 && Sidekiq::DeadSet.new.to_a }
      assert_equal [from_deckhand["doomed"], from_sidekiq["doomed"]].sort, dead.map(&:jid).sort
      redis.call("DEL", "fleet:doom:doomed by sidekiq", "fleet:doom:doomed by deckhand")
      Sidekiq::DeadSet.new.find_job(from_sidekiq["doomed"]).retry # buried by Deckhand, retried through Sidekiq's API
      deckhand_api = Deckhand::API.new(Deckhand.config)
      buried_by_sidekiq = deckhand_api.dead.page(1, 10).find { |entry| entry.jid == from_deckhand["doomed"] }
      deckhand_api.dead.retry([buried_by_sidekiq])
      wait_for(message: "both doomed jobs to run once retried") { log.count { |entry| entry.first == "doomed" } == 2 }
      assert_equal [["doomed", "doomed by deckhand", "sidekiq"], ["doomed", "doomed by sidekiq", "deckhand"]],
        log.select { |entry| entry.first == "doomed" }.sort

      # Sidekiq's API reports the Deckhand process, a job holding one of its threads.
      Sidekiq::Client.push("class" => "Fleet::GateJob", "queue" => DECKHAND_SIDE, "args" => ["held"])
      process = wait_for(message: "the Deckhand process busy in Sidekiq's ProcessSet") do
        Sidekiq::ProcessSet.new.find { |p| p.identity == deckhand_identity && p["busy"] == 1 }
      end
      assert_equal 3, process["concurrency"]
      assert_equal({"concurrency" => 3, "weights" => {DECKHAND_SIDE => 0}}, process["capsules"]["default"].slice("concurrency", "weights"))
      assert_equal [DECKHAND_SIDE], process.queues
      assert_equal 5, Sidekiq::ProcessSet.new.total_concurrency, "Deckhand's 3 threads and Sidekiq's 2"
      redis.call("RPUSH", "fleet:gate", "go")

      # Deckhand's API reports the Sidekiq process.
      seen = deckhand_api.processes.find(sidekiq.identity)
      assert_equal [2, Sidekiq::VERSION], [seen.concurrency, seen.version]

      # Sidekiq's metrics query shows the classes Deckhand ran (flushed with its heartbeat).
      totals = wait_for(message: "Deckhand's runs in Sidekiq's metrics") do
        result = Sidekiq::Metrics::Query.new.top_jobs(minutes: 10).job_results["Fleet::FlakyJob"]
        result.totals if result.totals["p"] >= 4 && result.totals["f"] >= 2
      end
      assert_operator totals["ms"], :>=, 0
      assert_operator Sidekiq::Metrics::Query.new.for_job("Fleet::PlainJob", minutes: 10).job_results["Fleet::PlainJob"].totals["p"], :>=, 3

      cli.signal("TERM")
      assert_equal 0, cli.wait_exit(timeout: 15).exitstatus, cli.output
      refute_match(/ERROR|NameError|not part of the bundle/, cli.output)
    end
    assert_equal [0, 0, 0], [redis.call("ZCARD", "retry"), redis.call("ZCARD", "dead"), redis.call("ZCARD", "schedule")]
  end

  private

  # What Sidekiq's adapter writes in this bundle: Sidekiq 8's name, or the one Sidekiq 7 reads.
  def expected_wrapper
    Sidekiq::VERSION.start_with?("7.") ? "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper" : "Sidekiq::ActiveJob::Wrapper"
  end

  # In the Sidekiq child: the jobs, and the middleware Sidekiq's own configure_server would add.
  def sidekiq_side(config)
    require JOBS
    config.server_middleware { |chain| chain.add(Fleet::Seen) }
  end

  def push(script, env:)
    out, status = Open3.capture2e(env, RbConfig.ruby, "-e", script)
    assert status.success?, out
    JSON.parse(out.lines.last)
  end

  def log = redis.call("LRANGE", "fleet:log", 0, -1).map { |raw| JSON.parse(raw) }

  def tries(label) = redis.call("GET", "fleet:tries:#{label}").to_i

  # label => the side that ran it, once every crossing job ran.
  def crossed?(*)
    ran = log.reject { |entry| %w[seen gate].include?(entry.first) }.to_h { |entry| [entry[1], entry.last] }
    labels = ["plain from sidekiq", "scheduled by sidekiq", "flaky from sidekiq", "active job from sidekiq",
      "plain from deckhand", "scheduled by deckhand", "flaky from deckhand", "active job from deckhand"]
    ran if labels.all? { |label| ran.key?(label) } && tries("flaky from sidekiq") == 2 && tries("flaky from deckhand") == 2
  end
end
