# frozen_string_literal: true

require_relative "e2e_helper"
require_relative "apps/chunk_jobs"
require "support/reliability_helpers"

# A process SIGKILLed while it runs a chunk: its members are recovered like
# any fetched jobs, each counted, and run again one at a time by the
# survivor, so each finishes exactly once and a poison pill would be found.
class ChunkRecoveryTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("apps/chunk_app.rb", __dir__)
  TTL = 1

  def setup
    super
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\n")
  end

  def worker
    cli = deckhand("-C", @config, "-c", "1", app: APP)
    cli.identity
    cli
  end

  def calls = redis.call("LRANGE", "e2e:chunk:calls", 0, -1).map { |entry| JSON.parse(entry) }

  def test_the_members_of_a_chunk_killed_mid_run_are_recovered_and_each_finishes_once
    jids = E2E::HeldChunkJob.perform_bulk((1..10).zip)
    victim = worker
    wait_for(message: "the chunk running") { calls.size == 1 }
    assert_equal [victim.pid, jids], calls.first, "one call took the ten waiting jobs"
    survivor = worker
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    wait_for(timeout: 15, message: "the members recovered") { jids.all? { |jid| recoveries(jid) == 1 } }
    10.times { redis.call("RPUSH", "e2e:chunk:go", "go") }
    wait_for(message: "every member done") { redis.call("LLEN", "e2e:chunk:done") == 10 }
    assert_equal jids.sort, redis.call("LRANGE", "e2e:chunk:done", 0, -1).sort, "each member finished once"
    again = calls.drop(1)
    assert_equal [survivor.pid], again.map(&:first).uniq
    assert_equal jids.sort, again.map(&:last).flatten.sort
    assert_equal [1], again.map { |_, members| members.size }.uniq, "recovered members run one at a time"
    wait_for(message: "the counts forgotten once each succeeded") { jids.all? { |jid| recoveries(jid).nil? } }
    wait_for(message: "nothing left in flight") { inflight_count(survivor.identity).zero? }
    assert_empty inflight_keys(victim.identity)
  end
end
