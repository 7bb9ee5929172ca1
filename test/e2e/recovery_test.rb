# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"

# Real processes SIGKILLed: the survivors recover their jobs without a restart,
# and a job that keeps killing its process is quarantined.
class RecoveryTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("../support/reliability_app.rb", __dir__)
  TTL = 1
  REAPER_INTERVAL = 0.2
  # The documented bound, plus boot-free slack for a shared machine.
  BOUND = TTL + (REAPER_INTERVAL * 1.2) + 3

  def setup
    super
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\n")
  end

  def worker(*args) = boot("-C", @config, *args, app: APP)

  def boot(*args, app:)
    cli = deckhand(*args, app: app)
    cli.identity
    cli
  end

  def holder(clis) = clis.find { |cli| inflight_count(cli.identity, ["slow"]).positive? }

  def test_a_survivor_runs_the_job_of_a_sigkilled_process_without_any_restart
    clis = [worker("-c", "1", "-q", "slow"), worker("-c", "1", "-q", "slow")]
    jid = E2E::SlowJob.perform_async(1)
    wait_for(message: "the job to start") { started.include?(jid) }
    victim = holder(clis)
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    wait_for(timeout: BOUND, message: "the job to start again on the survivor") { started.count(jid) == 2 }
    assert_equal 1, recoveries(jid, queue: "slow"), "the recovery is counted while the job runs again"
    wait_for(message: "the job to finish") { finished == [jid] }
    assert_equal 0, redis.call("HEXISTS", Keys::OWNERS, victim.identity), "the dead process is still an owner"
    assert_empty inflight_keys(victim.identity)
    wait_for(message: "the count forgotten once the job succeeded") { recoveries(jid, queue: "slow").nil? }
  end

  def test_a_job_that_kills_its_process_is_quarantined_after_three_crashes_and_innocents_all_run
    clis = [worker("-c", "2"), worker("-c", "2")]
    pill = Deckhand::Client.push("class" => "E2E::PillJob", "args" => [])
    innocents = Array.new(20) { |i| E2E::CountJob.perform_async(i) }
    crashes = 0
    wait_for(timeout: 60, message: "the pill in the dead set") do
      clis.reject(&:alive?).each do |dead|
        crashes += 1
        clis[clis.index(dead)] = worker("-c", "2")
      end
      redis.call("ZCARD", "dead") == 1
    end
    job = zset("dead").first.first
    assert_equal [pill, "Deckhand::PoisonPill"], job.values_at("jid", "error_class")
    assert_match(/died 3 times/, job["error_message"])
    assert_equal 3, crashes
    assert_equal 3, redis.call("LLEN", "e2e:pill")
    wait_for(message: "every innocent job") { counts.keys.sort == (0...20).to_a }
    assert_equal 20, innocents.size
  end

  # The recovery bookkeeping lives beside the job, never inside it: args that
  # carry Deckhand's own field names, commas and newlines (the lot's framing)
  # come back byte for byte from any number of crashes.
  def test_args_with_deckhand_s_own_field_names_survive_three_sigkill_recoveries_byte_for_byte
    config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\nmax_recoveries: 5\n")
    data = {"deckhand_recovered" => 7, "jid" => "not-mine", "class" => "Nope", "queue" => "elsewhere", "retry" => false,
            "retry_count" => 99, "error_class" => "E", "error_message" => "x", "failed_at" => 1, "enqueued_at" => "soon",
            "created_at" => "then", "bid" => "b", "wrapped" => "W", "~v" => 1, "0~" => "\x01", "text" => "a,b\n12,3\n\u00e9\u2028"}
    jid = Deckhand::Client.push("class" => "E2E::HoldJob", "args" => [data], "queue" => "slow")
    raw = redis.call("LINDEX", "queue:slow", 0)
    starts = -> { redis.call("LRANGE", "e2e:hold:starts", 0, -1).map { |entry| JSON.parse(entry) } }
    4.times do |lap|
      cli = boot("-C", config, "-c", "1", "-q", "slow", app: APP)
      wait_for(timeout: BOUND + 5, message: "run #{lap + 1} to start") { starts.call.size == lap + 1 }
      assert_equal [cli.pid, data], starts.call.last
      assert_equal [raw.b], inflight_payloads(cli.identity, ["slow"]).map(&:b), "the payload changed by run #{lap + 1}"
      next if lap == 3
      cli.signal("KILL")
      cli.wait_exit(timeout: 5)
    end
    assert_equal 3, recoveries(jid, queue: "slow")
    redis.call("RPUSH", "e2e:hold:go", "go")
    wait_for(message: "the job to finish") { redis.call("LLEN", "e2e:hold:done") == 1 }
    assert_equal data, JSON.parse(redis.call("LINDEX", "e2e:hold:done", 0))
  end
end
