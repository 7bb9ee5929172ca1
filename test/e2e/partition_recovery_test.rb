# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"
require "deckhand/api"

# A partitioned queue's jobs in flight on a SIGKILLed process go back to their
# partitions and run once more on a survivor, and the throttle slots they
# held come back to each partition; the config file's `partitions` and
# `throttle` reach the server.
class PartitionRecoveryTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("../support/reliability_app.rb", __dir__)
  TTL = 1
  LISTS = %w[slow slow~p1 slow~p2].freeze

  def setup
    super
    wait_for_redis_uptime(TTL)
    Deckhand.config = new_config(partitions: {"slow" => 3})
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\npartitions:\n  slow: 3\n")
  end

  def worker
    cli = deckhand("-C", @config, "-c", "3", "-q", "slow", app: APP)
    cli.identity
    cli
  end

  def starts = redis.call("LRANGE", "e2e:hold:starts", 0, -1).map { |entry| JSON.parse(entry) }

  def test_a_sigkilled_process_s_jobs_go_back_to_their_partitions_and_run_on_a_survivor
    victim = worker
    3.times { |i| Deckhand::Client.push("class" => "E2E::HoldJob", "args" => [{"n" => i}], "queue" => "slow") }
    wait_for(message: "the victim to run all three") { starts.size == 3 }
    LISTS.each { |list| assert_equal 1, inflight_count(victim.identity, [list]), "one job in flight from #{list}" }
    survivor = worker
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    pid = victim.identity.split(":")[-2].to_i
    wait_for(timeout: 15, message: "the survivor to run them again") { starts.count { |started_by, _| started_by != pid } == 3 }
    assert_equal [{"n" => 0}, {"n" => 1}, {"n" => 2}], starts.last(3).map(&:last).sort_by { |data| data["n"] }
    LISTS.each do |list|
      counts = redis.call("HGETALL", keys.recoveries(list)).except("~v")
      assert_equal ["1"], counts.values, "one recovery counted in #{list}'s own books"
    end
    3.times { redis.call("RPUSH", "e2e:hold:go", "1") }
    wait_for(message: "the three to finish") { redis.call("LLEN", "e2e:hold:done") == 3 }
    assert_empty inflight_keys(victim.identity)
    wait_for(message: "acknowledgements") { LISTS.all? { |list| inflight_count(survivor.identity, [list]).zero? } }
  end

  # Throttled at 3 over 3 partitions, each partition runs one job at a time:
  # the survivor can run the victim's jobs again only once recovery gave
  # back the slot each held in its own partition's throttle.
  def test_a_sigkilled_process_s_throttle_slots_come_back_to_each_partition
    Deckhand.config = new_config(partitions: {"slow" => 3}, throttle: {"slow" => {concurrency: 3}})
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\npartitions:\n  slow: 3\n" \
      "throttle:\n  slow: {concurrency: 3}\n")
    victim = worker
    4.times { |i| Deckhand::Client.push("class" => "E2E::HoldJob", "args" => [{"n" => i}], "queue" => "slow") }
    wait_for(message: "the victim to run one job of each partition") { starts.size == 3 }
    LISTS.each { |list| assert_equal 1, held(list), "#{list} holds its one slot" }
    survivor = worker
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    pid = victim.identity.split(":")[-2].to_i
    wait_for(timeout: 15, message: "the survivor to run them again") { starts.count { |started_by, _| started_by != pid } == 3 }
    assert_equal 3, Deckhand::API.new.throttle("slow").held, "the queue shows its partitions' slots as one"
    4.times { redis.call("RPUSH", "e2e:hold:go", "1") }
    wait_for(message: "the four to finish") { redis.call("LLEN", "e2e:hold:done") == 4 }
    wait_for(message: "every slot back") { LISTS.all? { |list| held(list).zero? } }
    LISTS.each { |list| assert_equal ["~held"], redis.call("HKEYS", keys.throttle(list)), "no process holds a slot of #{list}" }
    wait_for(message: "acknowledgements") { LISTS.all? { |list| inflight_count(survivor.identity, [list]).zero? } }
  end

  private

  def held(list) = redis.call("HGET", keys.throttle(list), "~held").to_i
end
