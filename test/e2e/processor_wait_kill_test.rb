# frozen_string_literal: true

require_relative "e2e_helper"
require "support/reliability_helpers"

# SIGKILL of a server whose idle processors wait in Redis themselves (their
# own BLMOVEs into the landing list) while some of them run jobs those waits
# brought: a survivor recovers every job of the dead process, each finishes
# once, and none is lost from a wait that was under way.
class ProcessorWaitKillTest < Minitest::Test
  include Deckhand::E2EHelpers
  include Deckhand::ReliabilityHelpers

  APP = File.expand_path("../support/reliability_app.rb", __dir__)
  TTL = 1

  def setup
    super
    wait_for_redis_uptime(TTL)
    @config = config_file("heartbeat_interval: 0.2\nheartbeat_ttl: #{TTL}\n")
  end

  def worker = deckhand("-C", @config, "-c", "5", "-q", "slow", app: APP).tap(&:identity)

  def blocked_waits = redis.call("CLIENT", "LIST").lines.grep(/cmd=blmove/).count { |line| line[/\bflags=(\S+)/, 1].include?("b") }

  def test_sigkill_while_processors_wait_and_run_loses_and_doubles_nothing
    victim = worker
    quick = Array.new(6) do |i|
      E2E::SlowJob.perform_async(0).tap { |jid| wait_for(message: "warm-up job #{i}") { finished.include?(jid) } }
    end
    wait_for(message: "processors waiting in Redis") { blocked_waits >= 2 }
    held = Array.new(3) { E2E::SlowJob.perform_async(3).tap { sleep 0.05 } }
    wait_for(message: "the held jobs to start") { (held - started).empty? }
    assert_equal held.size, inflight_count(victim.identity, ["slow"]), "the held jobs are in the victim's in-flight record"
    victim.signal("KILL")
    victim.wait_exit(timeout: 5)
    worker
    later = Array.new(5) { E2E::SlowJob.perform_async(0.05) }
    wait_for(timeout: 60, message: "every job to finish") { (quick + held + later - finished).empty? }
    sleep 0.5
    assert_equal (quick + held + later).sort, finished.sort, "each job finished once"
    assert_equal 0, redis.call("LLEN", "queue:slow")
    held.each { |jid| assert_equal 2, started.count(jid), "held job #{jid} ran again once, on the survivor" }
  end
end
