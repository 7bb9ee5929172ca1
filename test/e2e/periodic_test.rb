# frozen_string_literal: true

require_relative "e2e_helper"

# Periodic jobs across real `deckhand` processes: three servers share one
# schedule and enqueue each tick once; the leader's SIGKILL costs at most the
# ticks of the takeover, never a double. The queue "ticks" is not worked: it
# is the ledger of the ticks enqueued (each job names its scheduled time).
class PeriodicE2ETest < Minitest::Test
  include Deckhand::E2EHelpers

  SCHEDULE = <<~YAML
    periodic:
      timezone: UTC
      grace: 30
      jobs:
        every-2s: {cron: "*/2 * * * * *", class: E2E::CountJob, queue: ticks, args: [1]}
        paused: {cron: "* * * * * *", class: E2E::CountJob, queue: paused, args: [2]}
  YAML

  def ledger = jobs_in("ticks").map { |job| job["periodic_at"] }.reverse

  def leader = Deckhand::Store::Features::PeriodicState.leader(Deckhand::RedisHarness.store)

  def test_three_servers_enqueue_each_tick_once_through_the_leaders_death
    Deckhand::Store::Features::PeriodicState.pause(Deckhand::RedisHarness.store, "paused")
    started = Time.now.to_f
    config = config_file(SCHEDULE)
    servers = Array.new(3) { boot("-C", config, "-c", "1", "-q", "default") }
    wait_for(timeout: 60, message: "10 ticks") { ledger.size >= 10 }
    first = servers.find { |cli| cli.identity == leader } or flunk("no server holds the lease: #{leader.inspect}")
    before = ledger
    first.signal("KILL")
    first.wait_exit
    killed = Time.now.to_f
    wait_for(timeout: 60, message: "a new leader") { leader && leader != first.identity }
    wait_for(timeout: 60, message: "10 ticks after the takeover") { ledger.count { |tick| tick > killed } >= 10 }

    other = boot("-C", config_file(SCHEDULE.sub("*/2 * * * * *", "*/3 * * * * *")), "-c", "1", "-q", "default")
    other.wait_for_log(/schedule differs from the leader's/, timeout: 60)
    assert_includes other.output, "every-2s: cron \"*/3 * * * * *\" here, \"*/2 * * * * *\" on the leader"
    (servers - [first] + [other]).each { |cli| cli.signal("TERM") }
    (servers - [first] + [other]).each { |cli| assert_equal 0, cli.wait_exit(timeout: 30).exitstatus }

    ticks = ledger
    assert_equal ticks.uniq, ticks, "a tick was enqueued twice"
    assert_equal ticks.sort, ticks
    assert ticks.all? { |tick| tick.even? }
    gaps = ticks.each_cons(2).reject { |a, b| b - a == 2 }
    assert_operator gaps.size, :<=, 1, "ticks were lost other than during the takeover: #{gaps.inspect}"
    gaps.each do |a, b|
      assert_operator a, :>=, before.last, "a tick before the kill was lost"
      assert_operator a, :<=, killed
      puts "\n  takeover after SIGKILL: ticks #{a} .. #{b} (#{(b - a) / 2 - 1} lost), killed at #{killed.round(1)}" if ENV["VERBOSE"]
    end
    assert_operator ticks.first, :>, started
    assert_empty jobs_in("paused"), "a paused entry enqueued a job"
    assert_operator redis.call("HGET", "deckhand:periodic:entry:paused", "since").to_f, :>, started + 1, "the paused entry's ticks did not pass"
  end

  def test_a_bad_entry_in_the_config_file_stops_the_boot_naming_it
    config = config_file(<<~YAML)
      periodic:
        jobs:
          nightly: {cron: "0 25 * * *", class: E2E::CountJob}
    YAML
    cli = deckhand_run("-C", config)
    assert_equal 1, cli.status.exitstatus
    assert_includes cli.stderr, "periodic entry \"nightly\" (E2E::CountJob): \"0 25 * * *\" is not a cron"
  end
end
