# frozen_string_literal: true

require_relative "swarm_helper"

# A swarm's workers each run the periodic loop; each tick is still enqueued
# once, and a worker's SIGKILL hands the lead to its sibling.
class PeriodicSwarmTest < Minitest::Test
  include Deckhand::SwarmHelpers

  def ledger = jobs_in("ticks").map { |job| job["periodic_at"] }.reverse

  def test_workers_of_a_swarm_enqueue_each_tick_once
    config = config_file(<<~YAML)
      periodic:
        jobs:
          every-second: {cron: "* * * * * *", class: SwarmApp::PidJob, queue: ticks, args: [0]}
    YAML
    cli = swarm("-P", "2", "-c", "1", "-C", config)
    wait_for(timeout: 60, message: "5 ticks") { fail_unless_alive(cli) || ledger.size >= 5 }
    leader = Deckhand::Store::Features::PeriodicState.leader(Deckhand::RedisHarness.store)
    pid = leader.split(":")[-2].to_i
    assert_includes children_of(cli.pid), pid, "the leader is not a worker of this swarm"
    ::Process.kill("KILL", pid)
    killed = Time.now.to_f
    wait_for(timeout: 60, message: "5 ticks after the kill") { ledger.count { |tick| tick > killed } >= 5 }
    cli.signal("TERM")
    assert_equal 0, cli.wait_exit(timeout: 30).exitstatus
    ticks = ledger
    assert_equal ticks.uniq, ticks, "a tick was enqueued twice"
  end
end
